import { readFileSync } from 'node:fs';
import test from 'ava';
import { runTapProcess } from '../../scripts/tap-runner';

// The suite's watchdog (scripts/tap-runner.ts) with real processes: a runner that goes silent,
// and one that exits while a child it started still holds the output pipe.

/** A node program that prints its grandchild's pid and a passing test point, then does `rest`. */
function program(rest: string): string[] {
  const grandchild = `require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: ['ignore', 'inherit', 'inherit'] })`;
  return ['-e', `const g = ${grandchild}; console.log('# grandchild ' + g.pid); console.log('ok 1 - a'); ${rest}`];
}

/** Running, not a zombie waiting for a reaper (its parent exited; init may reap late). */
function isRunning(pid: number): boolean {
  try {
    const state = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /s, '')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

async function run(rest: string, silentLimitMs: number) {
  let printed = '';
  const started = Date.now();
  const summary = await runTapProcess(process.execPath, program(rest), { silentLimitMs, echo: (chunk) => (printed += chunk) });
  const grandchild = Number(/# grandchild (\d+)/.exec(printed)?.[1]);
  return { summary, printed, grandchild, seconds: (Date.now() - started) / 1000 };
}

test('a run that stops printing is stopped with its processes, and the stall counts as a failure', async (t) => {
  const { summary, printed, grandchild, seconds } = await run('setInterval(() => {}, 1000);', 1_500);
  t.deepEqual(summary, { passed: 1, failed: 1, skipped: 0 });
  t.regex(printed, /not ok - nothing was printed for 2 s/);
  t.true(seconds < 15, `took ${seconds} s`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.false(isRunning(grandchild));
});

test('a run that exits while a child still holds its output ends anyway, and the child is stopped', async (t) => {
  const { summary, grandchild, seconds } = await run('process.exit(0);', 60_000);
  t.deepEqual(summary, { passed: 1, failed: 0, skipped: 0 });
  t.true(seconds < 10, `took ${seconds} s`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.false(isRunning(grandchild));
});

test('an interrupted run (its stop signal aborted) is stopped with every process of its group', async (t) => {
  const stop = new AbortController();
  let printed = '';
  const started = Date.now();
  const running = runTapProcess(process.execPath, program('setInterval(() => console.log("# still here"), 200);'), {
    silentLimitMs: 60_000,
    stop: stop.signal,
    echo: (chunk) => {
      printed += chunk;
      if (/ok 1 - a/.test(printed)) stop.abort();
    },
  });
  const summary = await running;
  const seconds = (Date.now() - started) / 1000;
  t.is(summary.passed, 1);
  t.true(seconds < 10, `took ${seconds} s`);
  await new Promise((resolve) => setTimeout(resolve, 200));
  t.false(isRunning(Number(/# grandchild (\d+)/.exec(printed)?.[1])), 'the grandchild is gone too');
});
