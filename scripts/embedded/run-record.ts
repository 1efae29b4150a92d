import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * What a running `npm start` (or `npm run start:cluster`) has started, in
 * DATA_DIR/run/npm-start.json: its own pid, Temporal's (the dev server, or the cluster's server
 * and UI server) and each supervised part's. A start that finds the record of a
 * supervisor that is gone (kill -9, power loss) stops what that one left running before it
 * starts anything; the embedded Postgres needs no pid here, its data directory identifies it
 * (scripts/embedded/postgres.ts, takeOver).
 */
export type RunRecord = { supervisor: number; temporal?: number; temporalUi?: number; parts: Record<string, number> };

export type RunRecordHandle = {
  update(change: (record: RunRecord) => void): Promise<void>;
  /** On a clean stop: nothing of ours runs any more. */
  remove(): Promise<void>;
};

export function runRecordPath(dataDir: string): string {
  return path.join(dataDir, 'run', 'npm-start.json');
}

export function readRunRecord(dataDir: string): RunRecord | null {
  try {
    return JSON.parse(readFileSync(runRecordPath(dataDir), 'utf8')) as RunRecord;
  } catch {
    return null;
  }
}

/**
 * Claims DATA_DIR for this process: refuses when another live `npm start` has it, stops what a
 * crashed one left behind, and writes a fresh record.
 */
export async function claimDataDir(dataDir: string, log: (line: string) => void): Promise<RunRecordHandle> {
  const file = runRecordPath(dataDir);
  const stale = readRunRecord(dataDir);
  if (stale && stale.supervisor !== process.pid && processLooksLike(stale.supervisor, 'scripts/start')) {
    throw new Error(`another npm start (pid ${stale.supervisor}) runs on ${dataDir}; stop it first, or set DATA_DIR`);
  }
  if (stale) {
    // Parts run compiled from DATA_DIR/run/ (scripts/build-parts.ts).
    const partMarker = `${path.join(dataDir, 'run')}${path.sep}`;
    for (const [name, pid] of Object.entries(stale.parts ?? {})) {
      if (await stopProcess(pid, partMarker, 5_000)) log(`stopped the ${name} (pid ${pid}) left by an npm start that crashed`);
    }
    // 'temporal server start-dev', '…/temporal-server … start', '…/temporal-ui-server … start'.
    const temporalParts: [number | undefined, string][] = [
      [stale.temporal, stale.temporal && processLooksLike(stale.temporal, 'start-dev') ? 'the Temporal dev server' : 'the Temporal server'],
      [stale.temporalUi, 'the Temporal UI server'],
    ];
    for (const [pid, what] of temporalParts) {
      if (pid && (await stopProcess(pid, 'temporal', 10_000))) log(`stopped ${what} (pid ${pid}) left by an npm start that crashed`);
    }
  }
  const record: RunRecord = { supervisor: process.pid, parts: {} };
  const save = async () => {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(`${file}.tmp`, JSON.stringify(record));
    await rename(`${file}.tmp`, file);
  };
  await save();
  let chain = Promise.resolve();
  return {
    update(change) {
      change(record);
      chain = chain.then(save, save);
      return chain;
    },
    async remove() {
      await chain.catch(() => undefined);
      await rm(file, { force: true });
    },
  };
}

/** A process that exists and has not exited (a zombie waiting to be reaped counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  try {
    // /proc/PID/stat: "pid (comm) S ..."; comm may contain spaces and parentheses.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return true;
  }
}

/**
 * Alive, and (where /proc tells) running a command line that contains `marker`: a recorded pid
 * may have been reused by an unrelated process since, which we must not touch.
 */
export function processLooksLike(pid: number, marker: string): boolean {
  if (!Number.isInteger(pid) || pid <= 1 || !isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
  } catch {
    return process.platform !== 'linux';
  }
}

/**
 * Live processes with `argument` as one whole argument of their command line (from /proc; none
 * where there is no /proc): finds what a crashed start ran on a file of its DATA_DIR even when
 * the run record never got its pid.
 */
export function processesWithArgument(argument: string): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries
    .filter((entry) => /^\d+$/.test(entry) && Number(entry) !== process.pid)
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(argument);
      } catch {
        return false; // gone meanwhile, or not ours to read
      }
    })
    .map(Number)
    .filter(isAlive);
}

/** SIGTERM, then SIGKILL after graceMs; true when there was such a process to stop. */
export async function stopProcess(pid: number, marker: string, graceMs: number): Promise<boolean> {
  if (!processLooksLike(pid, marker)) return false;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return false;
  }
  const deadline = Date.now() + graceMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  while (isAlive(pid)) await new Promise((resolve) => setTimeout(resolve, 50));
  return true;
}
