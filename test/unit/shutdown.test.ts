import { spawn } from 'node:child_process';
import path from 'node:path';
import test from 'ava';

const root = path.resolve(__dirname, '../..');

/** Starts the child, sends it `signal` at each of `delaysMs` (from ready), and returns how it ended and its output. */
async function interrupt(stopMs: number, delaysMs: number[], signal: NodeJS.Signals = 'SIGINT'): Promise<{ code: number | null; diedOf: NodeJS.Signals | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'test/support/shutdown-child.ts')], {
    cwd: root,
    env: { ...process.env, STOP_MS: String(stopMs) },
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.on('exit', (...ended) => resolve(ended)));
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  while (!output.includes('ready')) await new Promise((resolve) => setTimeout(resolve, 20));
  for (const delay of delaysMs) setTimeout(() => child.kill(signal), delay);
  const [code, diedOf] = await exited;
  clearTimeout(killer);
  return { code, diedOf, output };
}

test('one Ctrl-C relayed three times (process group, npm, tsx) still stops cleanly', async (t) => {
  const { code, output } = await interrupt(600, [0, 30, 60]);
  t.is(code, 0, output);
  t.regex(output, /SIGINT: shutting down…\nstopped\n/);
  t.notRegex(output, /again/);
});

test('a closed terminal (SIGHUP) stops cleanly first, then the process dies of it', async (t) => {
  const { code, diedOf, output } = await interrupt(600, [0], 'SIGHUP');
  t.deepEqual({ code, diedOf }, { code: null, diedOf: 'SIGHUP' }, output);
  t.regex(output, /SIGHUP: shutting down…\nstopped\n/);
});

test('a second Ctrl-C after the relay window exits at once, without waiting for the stop', async (t) => {
  const { code, output } = await interrupt(5_000, [0, 1_500]);
  t.is(code, 130, output);
  t.regex(output, /SIGINT again: exiting now/);
  t.notRegex(output, /stopped/);
});
