import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, open } from 'node:fs/promises';
import path from 'node:path';
import { isListening, waitForPort } from './ports';
import { processesWithArgument, stopProcess } from './run-record';
import { dynamicConfigFlags, SHARED_DYNAMIC_CONFIG } from './temporal-dynamic-config';

export type DevServer = {
  address: string;
  uiUrl: string | null;
  /** The server's process; undefined when an already running server was reused. */
  pid?: number;
  /** Resolves when the process exits (never for a reused server). */
  exited: Promise<void>;
  stop(): Promise<void>;
};

export type DevServerOptions = {
  cliPath: string;
  port: number;
  uiPort?: number;
  /** A SQLite file keeps workflows across restarts; without it the server is in memory. */
  dbFile?: string;
  /** The SQLite file's pragmas (default SQLITE_PRAGMAS; bench/engine.ts --storage compares SQLite's own defaults). */
  sqlitePragmas?: readonly string[];
  logFile: string;
  log?: (line: string) => void;
  /** Partitions per task queue (default 1, see dynamicConfig; bench/engine.ts compares the server's 4). */
  taskQueuePartitions?: number;
  /** Serves the server's Prometheus metrics on 127.0.0.1:metricsPort/metrics (benchmarks count heartbeats there). */
  metricsPort?: number;
  /**
   * Runs the server in a session of its own (npm start): a Ctrl-C in the terminal signals the
   * whole foreground process group at once, and a server in it would stop while the workers
   * still drain, leaving them to retry their last completions against a closed port (those
   * tasks then redone after their timeouts). Out of the group it hears only its caller, which
   * must stop it after the workers and record its pid for the next start (scripts/stack.ts,
   * run-record.ts). Tests and benchmarks keep it in their group, so killing that group leaves
   * nothing behind.
   */
  ownSession?: boolean;
  /**
   * The caller holds the data folder of dbFile (npm start, run-record.ts): a dev server already
   * running on that file is a crashed start's, stopped before ours starts instead of used. Its
   * pid may be missing from the run record (a supervisor killed while the server was starting),
   * and a server used as found would be nobody's: never restarted when it dies, left running at
   * the next stop.
   */
  takeOver?: boolean;
};

/**
 * The SQLite file's pragmas (npm start): a write-ahead log instead of a rollback journal, and
 * fsync only at checkpoints (synchronous=NORMAL, safe in WAL mode against a crash of the
 * server; a power cut can lose the last transactions, acceptable for the local engine).
 * Measured in docs/performance.md ("The dev server's SQLite pragmas", `npm run bench:engine -- --storage`).
 */
export const SQLITE_PRAGMAS: readonly string[] = ['journal_mode=WAL', 'synchronous=NORMAL'];

/**
 * The dev server runs SHARED_DYNAMIC_CONFIG (eager activities, the transfer queue's poll rate)
 * and one partition per task queue instead of the server's 4: partitions spread a queue's tasks
 * and pollers over matching hosts, which one process does not have; with 4, a task often landed
 * on a partition where no poller waited and was matched late. Measured with no-op workflows on a
 * worker with 2 pollers: 38 → 61 workflows/s for the same server CPU per workflow
 * (`npm run bench:engine`, docs/performance.md "Task-queue partitions and pollers").
 */
function dynamicConfig(taskQueuePartitions: number): string[] {
  return dynamicConfigFlags({
    ...SHARED_DYNAMIC_CONFIG,
    'matching.numTaskqueueReadPartitions': taskQueuePartitions,
    'matching.numTaskqueueWritePartitions': taskQueuePartitions,
  });
}

/**
 * Runs `temporal server start-dev` (frontend on port, UI on uiPort). When something already
 * listens on the port we assume it is a dev server from an earlier start and use it.
 */
export async function startTemporalDevServer(options: DevServerOptions): Promise<DevServer> {
  const address = `127.0.0.1:${options.port}`;
  const uiUrl = options.uiPort ? `http://127.0.0.1:${options.uiPort}` : null;
  if (options.takeOver && options.dbFile) {
    for (const pid of processesWithArgument(options.dbFile)) {
      if (await stopProcess(pid, 'start-dev', 10_000)) options.log?.(`stopped the Temporal dev server (pid ${pid}) left running on ${options.dbFile} by an earlier start`);
    }
  }
  if (await isListening(options.port)) {
    options.log?.(`Temporal already listening on ${address}; using it`);
    return { address, uiUrl, exited: new Promise<void>(() => undefined), stop: async () => undefined };
  }
  if (options.dbFile) await mkdir(path.dirname(options.dbFile), { recursive: true });
  await mkdir(path.dirname(options.logFile), { recursive: true });
  const logHandle = await open(options.logFile, 'a');
  const args = [
    'server', 'start-dev', '--ip', '127.0.0.1', '--port', String(options.port),
    '--log-level', 'warn', '--namespace', 'default',
    ...(options.dbFile ? ['--db-filename', options.dbFile, ...(options.sqlitePragmas ?? SQLITE_PRAGMAS).flatMap((pragma) => ['--sqlite-pragma', pragma])] : []),
    ...dynamicConfig(options.taskQueuePartitions ?? 1),
    ...(options.uiPort ? ['--ui-port', String(options.uiPort)] : ['--headless']),
    ...(options.metricsPort ? ['--metrics-port', String(options.metricsPort)] : []),
  ];
  const child: ChildProcess = spawn(options.cliPath, args, {
    stdio: ['ignore', logHandle.fd, logHandle.fd],
    detached: options.ownSession ?? false,
  });
  let exited = false;
  const exitPromise = new Promise<void>((resolve) => child.on('exit', () => ((exited = true), resolve())));
  try {
    await Promise.race([
      waitForPort(options.port, 60_000),
      exitPromise.then(() => {
        throw new Error(`the Temporal dev server exited during start-up; see ${options.logFile}`);
      }),
    ]);
  } catch (error) {
    child.kill('SIGKILL');
    await logHandle.close();
    throw error;
  }
  options.log?.(`Temporal dev server on ${address}${uiUrl ? `, UI ${uiUrl}` : ''}`);
  return {
    address,
    uiUrl,
    pid: child.pid,
    exited: exitPromise,
    async stop() {
      if (!exited) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exitPromise;
        clearTimeout(killer);
      }
      await logHandle.close();
    },
  };
}
