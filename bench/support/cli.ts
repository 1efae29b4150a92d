import os from 'node:os';
import path from 'node:path';

/**
 * The common command line of the benchmarks: `--short` (or BENCH_SHORT=1/true) and
 * `--json PATH` / `--json=PATH`; anything else is an error.
 */
export function parseShortAndJson(argv: string[], env: NodeJS.ProcessEnv): { short: boolean; jsonPath: string | null } {
  let short = env.BENCH_SHORT === '1' || env.BENCH_SHORT === 'true';
  let jsonPath: string | null = null;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === '--short') short = true;
    else if (arg === '--json') {
      const value = argv[i + 1];
      if (!value || value.startsWith('--')) throw new Error('--json needs a file path');
      jsonPath = path.resolve(value);
      i += 1;
    } else if (arg.startsWith('--json=')) jsonPath = path.resolve(arg.slice('--json='.length));
    else throw new Error(`unknown argument ${arg} (expected --short, --json PATH)`);
  }
  return { short, jsonPath };
}

/** `BENCH_DURATION_SECONDS` as a whole number ≥ 1, or `fallback` when unset. */
export function durationSecondsFromEnv(env: NodeJS.ProcessEnv, fallback: number): number {
  if (!env.BENCH_DURATION_SECONDS) return fallback;
  const durationSeconds = Number(env.BENCH_DURATION_SECONDS);
  if (!Number.isInteger(durationSeconds) || durationSeconds < 1) {
    throw new Error(`BENCH_DURATION_SECONDS must be a whole number of seconds ≥ 1, got "${env.BENCH_DURATION_SECONDS}"`);
  }
  return durationSeconds;
}

/** Logs a warning when the 1-minute load average is above `threshold`; returns the load average. */
export function warnIfBusy(log: (line: string) => void, threshold: number): number {
  const [loadAverage] = os.loadavg();
  if (loadAverage > threshold) log(`warning: the machine is busy (1-min load average ${loadAverage.toFixed(2)}); numbers will be noisy`);
  return loadAverage;
}

/** Runs a benchmark's main and exits with its code (1 on an uncaught error). */
export function runMain(main: () => Promise<number>): void {
  main().then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
