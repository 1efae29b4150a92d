import { spawn } from 'node:child_process';
import { summariseTap, type TapSummary } from './tap-summary';

/**
 * Ava's own timeout ("3m" in package.json) ends a test that stops reporting, but it has been seen
 * to crash its TAP reporter doing so and leave the run waiting, with test-file processes still
 * holding the output pipe, until CI's time ran out. The runner's watchdog is the suite's last
 * line: no output for this long stops the runner and everything it started, counted as a failure.
 */
export const SILENT_RUN_LIMIT_MS = Number(process.env.TEST_SILENT_LIMIT_MS ?? 8 * 60_000);

/** How long the output may stay open after the runner itself exited (orphaned children). */
const OUTPUT_DRAIN_MS = 5_000;

/**
 * Runs a TAP-printing command, echoing its output, and counts its test points. The command gets a
 * process group of its own, stopped as a whole when it goes silent, when it exits, and when
 * `stop` aborts.
 */
export function runTapProcess(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; silentLimitMs: number; echo?: (chunk: string) => void; stop?: AbortSignal },
): Promise<TapSummary> {
  const echo = options.echo ?? ((chunk: string) => process.stdout.write(chunk));
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    let output = '';
    let lastOutputAt = Date.now();
    let stalled = false;
    let finished = false;
    const stopGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // the group is already gone
      }
    };
    // Its own process group does not get the terminal's Ctrl-C: the caller passes it on.
    options.stop?.addEventListener('abort', () => {
      stopGroup('SIGTERM');
      setTimeout(() => stopGroup('SIGKILL'), 5_000).unref();
    });
    const watchdog = setInterval(
      () => {
        if (Date.now() - lastOutputAt < options.silentLimitMs) return;
        stalled = true;
        clearInterval(watchdog);
        echo(`not ok - nothing was printed for ${Math.round(options.silentLimitMs / 1000)} s: the run and its processes were stopped\n`);
        stopGroup('SIGTERM');
        setTimeout(() => stopGroup('SIGKILL'), 10_000).unref();
      },
      Math.min(5_000, options.silentLimitMs / 4),
    );
    const finish = (code: number | null) => {
      if (finished) return;
      finished = true;
      clearInterval(watchdog);
      // A stopped run's exit code says nothing more than the stall, which is its one failure.
      const summary = summariseTap(output, stalled ? 0 : (code ?? 1));
      if (stalled) summary.failed += 1;
      resolve(summary);
    };
    child.stdout.on('data', (chunk: Buffer) => {
      lastOutputAt = Date.now();
      const text = chunk.toString();
      echo(text);
      output += text;
    });
    child.on('error', (error) => {
      clearInterval(watchdog);
      reject(error);
    });
    child.on('close', (code) => finish(code));
    child.on('exit', (code) => {
      stopGroup('SIGKILL');
      setTimeout(() => finish(code), OUTPUT_DRAIN_MS).unref();
    });
  });
}
