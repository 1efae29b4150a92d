import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, freePortBetween } from '../../scripts/embedded/ports';
import { postmasterPid, stopEmbeddedPostgres } from '../../scripts/embedded/postgres';
import { isAlive, readRunRecord, type RunRecord } from '../../scripts/embedded/run-record';

const root = path.resolve(__dirname, '../..');

/** Variables of the test run that would point `npm start` at the suite's services instead of its own. */
const NOT_INHERITED = ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'TEMPORAL_TASK_QUEUE', 'BLOB_DIR', 'SECRETS_ENCRYPTION_KEY', 'DIAN_SIMULATOR_URL', 'WORKFLOW_BUNDLE_PATH'];

export type StartEnvironment = { dataDir: string; env: NodeJS.ProcessEnv; apiUrl: string; smtpPort: number };

/** A fresh DATA_DIR and free loopback ports for `npm start`, as a user would run it. */
export async function npmStartEnvironment(extra: Record<string, string> = {}): Promise<StartEnvironment> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'invoicing-npm-start-'));
  // Postgres and Temporal are stopped and started again on the same port by the fault tests: a
  // port the kernel hands out for outgoing connections (32768 and up) could be taken meanwhile
  // (seen once: Postgres could not bind after its 15 s outage), so theirs are picked below it.
  const [port, smtpPort, uiPort] = [await freePort(), await freePort(), await freePort()];
  const [temporalPort, postgresPort] = [await freePortBetween(20_000, 32_768), await freePortBetween(20_000, 32_768)];
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of NOT_INHERITED) delete env[name];
  Object.assign(env, {
    DATA_DIR: dataDir,
    PORT: String(port),
    SMTP_PORT: String(smtpPort),
    TEMPORAL_DEV_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(uiPort),
    EMBEDDED_POSTGRES_PORT: String(postgresPort),
    LOG_LEVEL: 'warn',
    ...extra,
  });
  return { dataDir, env, apiUrl: `http://127.0.0.1:${port}`, smtpPort };
}

export type NpmStart = {
  process: ChildProcess;
  /** Everything it printed so far. */
  output(): string;
  /** The demo admin key, printed on the first run of a DATA_DIR only. */
  demoKey: string | null;
  record(): RunRecord;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
};

/**
 * `npm start` (scripts/start.ts), or `npm run start:cluster` with entry scripts/start-cluster.ts,
 * as a child process; resolves once it printed "press Ctrl-C".
 */
export async function launchNpmStart(environment: StartEnvironment, timeoutMs = 180_000, entry = 'scripts/start.ts'): Promise<NpmStart> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, entry)], {
    cwd: root,
    env: environment.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const deadline = Date.now() + timeoutMs;
  let gone = false;
  void exited.then(() => (gone = true));
  while (!output.includes('press Ctrl-C to stop')) {
    if (gone || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`npm start did not come up:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const demoKey = /Authorization: Bearer (\S+?)"/.exec(output)?.[1] ?? null;
  return {
    process: child,
    output: () => output,
    demoKey,
    record: () => {
      const record = readRunRecord(environment.dataDir);
      if (!record) throw new Error('npm start wrote no run record');
      return record;
    },
    exited,
  };
}

/**
 * Sends `signal` where a terminal's Ctrl-C (SIGINT) or hang-up (SIGHUP) reaches an `npm start`
 * run in it: the supervisor and each of its descendants still in its process group (in a
 * terminal, the foreground job). Here that group is the test runner's, which is spared: the
 * supervisor stays in it so that a stopped test run takes it along (scripts/tap-runner.ts).
 */
export function signalLikeATerminal(supervisorPid: number, signal: NodeJS.Signals): number[] {
  const processes = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .map((entry) => {
      try {
        // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses.
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        return { pid: Number(entry), ppid: Number(ppid), pgrp: Number(pgrp) };
      } catch {
        return null; // gone meanwhile
      }
    })
    .filter((entry) => entry !== null);
  const group = processes.find((entry) => entry.pid === supervisorPid)?.pgrp;
  const reached = new Set([supervisorPid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const entry of processes) {
      if (!reached.has(entry.pid) && reached.has(entry.ppid) && entry.pgrp === group) {
        reached.add(entry.pid);
        grew = true;
      }
    }
  }
  for (const pid of reached) process.kill(pid, signal);
  return [...reached];
}

/** The pid of the embedded Postgres of a DATA_DIR (first line of postmaster.pid), if it runs. */
export function postgresPid(dataDir: string): number | null {
  const pid = postmasterPid(path.join(dataDir, 'postgres'));
  return pid !== null && isAlive(pid) ? pid : null;
}

export async function waitUntil(condition: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Whatever a test left of an `npm start` on dataDir: killed, the cluster stopped, the folder removed. */
export async function reapNpmStart(dataDir: string): Promise<void> {
  const record = readRunRecord(dataDir);
  const pids = record ? [record.supervisor, record.temporal, record.temporalUi, ...Object.values(record.parts)] : [];
  for (const pid of pids) {
    if (pid && isAlive(pid)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  await stopEmbeddedPostgres(path.join(dataDir, 'postgres'));
  await rm(dataDir, { recursive: true, force: true });
}
