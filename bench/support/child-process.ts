import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { partNodeArguments, type PartName } from '../../scripts/build-parts';

const projectRoot = path.resolve(__dirname, '../..');

/**
 * How start-up is judged complete: any HTTP answer on `readyPath` (the API answers /healthz
 * with 503 "degraded" when Temporal is absent), a 200 on it, a line of output matching
 * `readyLine`, or nothing at all (the caller waits in its own way).
 */
export type Readiness = 'http-any' | 'http-200' | 'log-line' | 'none';

export type ChildProcessHandle = {
  name: string;
  /** `http://127.0.0.1:<port>`, or '' when no port was given. */
  url: string;
  /** The Node process itself (tsx is loaded as a module, not a wrapper), so /proc/<pid> is what is measured. */
  pid: number;
  /** False once the process has exited, for whatever reason. */
  alive(): boolean;
  /** Why it exited (`code 1`, `signal SIGKILL`, `spawn error: …`), or undefined while it runs. */
  exitDescription(): string | undefined;
  /** The last lines the process wrote to stdout/stderr, for error reports. */
  outputTail(): string;
  /** Rejects when the process exits before stop() was called (use it in a Promise.race). */
  unexpectedExit: Promise<never>;
  /** SIGTERM, then SIGKILL after `killTimeoutMs`; resolves once it has exited. */
  stop(): Promise<void>;
};

export type SpawnOptions = {
  name: string;
  /** A part of the service (api, worker, intake), compiled when COMPILED_PARTS_DIR is set (startPostgresAndTemporal)… */
  part?: PartName;
  /** …or a TypeScript entry point relative to the project, run as `node --import tsx <script>`… */
  script?: string;
  /** …or any command with its arguments (run in the project directory). */
  command?: string;
  args?: string[];
  env: Record<string, string>;
  /** Sets `url`. */
  port?: number;
  /** Lines of output kept for error reports (default 60). */
  tailLines?: number;
  /** Grace period between SIGTERM and SIGKILL on stop() (default 10 s). */
  killTimeoutMs?: number;
};

export type StartOptions = SpawnOptions & {
  readiness: Readiness;
  /** For the http readiness kinds. */
  readyPath?: string;
  /** For 'log-line'. */
  readyLine?: RegExp;
  readyTimeoutMs?: number;
  /** Per-request timeout of the readiness probe (default 5 s). */
  probeTimeoutMs?: number;
};

/** Spawns the process and returns at once; see startChildProcess to also wait until it is ready. */
export function spawnChildProcess(options: SpawnOptions): ChildProcessHandle & { onOutputLine(listener: (line: string) => void): void } {
  // BENCH_CPU_PROF_DIR: each script child writes a V8 CPU profile there when it exits (docs/performance.md).
  // A directory per child (api/, worker/); V8 names each thread's profile (CPU.<date>.<time>.<pid>.<thread>.<n>.cpuprofile).
  const profile = process.env.BENCH_CPU_PROF_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF_DIR, options.name)}`] : [];
  const [command, args] = options.part
    ? [process.execPath, [...profile, ...partNodeArguments(options.part)]]
    : options.script
      ? [process.execPath, [...profile, '--import', 'tsx', path.join(projectRoot, options.script)]]
      : [options.command ?? '', options.args ?? []];
  if (!command) throw new Error(`${options.name}: neither part, script nor command given`);
  const child = spawn(command, args, {
    cwd: projectRoot,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tailLines = options.tailLines ?? 60;
  const tail: string[] = [];
  const listeners: ((line: string) => void)[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      tail.push(line);
      if (tail.length > tailLines) tail.shift();
      for (const listener of listeners) listener(line);
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);

  let stopping = false;
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
  });
  const unexpectedExit = new Promise<never>((_, reject) => {
    child.once('error', (error) => {
      exit ??= `spawn error: ${error.message}`;
      reject(error);
    });
    void exited.then(() => {
      if (!stopping) {
        reject(new Error(`the ${options.name} process exited (${exit})\n--- ${options.name} output ---\n${tail.join('\n') || '(none)'}`));
      }
    });
  });
  unexpectedExit.catch(() => undefined); // observed through Promise.race by callers that care

  return {
    name: options.name,
    url: options.port === undefined ? '' : `http://127.0.0.1:${options.port}`,
    pid: child.pid ?? -1,
    alive: () => exit === undefined,
    exitDescription: () => exit,
    outputTail: () => tail.join('\n'),
    unexpectedExit,
    onOutputLine: (listener) => listeners.push(listener),
    async stop() {
      stopping = true;
      if (exit !== undefined || child.pid === undefined) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), options.killTimeoutMs ?? 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/**
 * Runs a process in its own process (so the load generator never shares its event loop and
 * its memory can be measured alone) and waits until it is ready. On a failed start the process
 * is stopped and the error carries its last output.
 */
export async function startChildProcess(options: StartOptions): Promise<ChildProcessHandle> {
  const handle = spawnChildProcess({ tailLines: 40, ...options });
  let sawReadyLine = false;
  if (options.readiness === 'log-line') {
    const pattern = options.readyLine;
    if (!pattern) throw new Error(`${options.name}: readiness 'log-line' needs readyLine`);
    handle.onOutputLine((line) => {
      if (pattern.test(line)) sawReadyLine = true;
    });
  }
  if (options.readiness === 'none') return handle;

  const timeoutMs = options.readyTimeoutMs ?? 60_000;
  try {
    if (options.readiness === 'log-line') {
      const deadline = Date.now() + timeoutMs;
      while (!sawReadyLine) {
        assertRunning([handle], 'during start-up');
        if (Date.now() > deadline) throw withOutput(`${options.name} did not write ${String(options.readyLine)} within ${timeoutMs / 1000} s`, handle);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } else {
      await waitForHttp(`${handle.url}${options.readyPath ?? '/'}`, {
        accept: options.readiness === 'http-any' ? 'any' : 200,
        timeoutMs,
        probeTimeoutMs: options.probeTimeoutMs,
        watch: [handle],
      });
    }
  } catch (error) {
    await handle.stop();
    throw error;
  }
  return handle;
}

/**
 * Polls `url` until it answers (any status, or 200) while every watched child keeps running;
 * errors carry the children's last output.
 */
export async function waitForHttp(
  url: string,
  options: { accept: 'any' | 200; timeoutMs: number; intervalMs?: number; probeTimeoutMs?: number; watch: ChildProcessHandle[] },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  const target = new URL(url);
  const shown = `${target.pathname}${target.search}`;
  let lastProblem = 'no answer yet';
  for (;;) {
    assertRunning(options.watch, 'during start-up');
    if (Date.now() > deadline) {
      throw withOutput(`${shown} did not answer${options.accept === 200 ? ' 200' : ''} within ${options.timeoutMs / 1000} s (${lastProblem})`, ...options.watch);
    }
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(options.probeTimeoutMs ?? 5000) });
      const body = await response.text();
      if (options.accept === 'any' || response.status === 200) return;
      lastProblem = `${response.status}: ${body.slice(0, 300)}`;
    } catch (error) {
      lastProblem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
}

/** Error text with each child's last output appended. */
export function withOutput(message: string, ...children: ChildProcessHandle[]): Error {
  const parts = [message];
  for (const child of children) {
    const output = child.outputTail();
    if (output) parts.push(`--- ${child.name} (pid ${child.pid}, ${child.exitDescription() ?? 'running'}) output ---\n${output}`);
  }
  return new Error(parts.join('\n'));
}

/** Throws (with its output) when any of the children has exited. */
export function assertRunning(children: ChildProcessHandle[], while_: string): void {
  for (const child of children) {
    const exit = child.exitDescription();
    if (exit !== undefined) throw withOutput(`${child.name} exited (${exit})${while_ ? ` ${while_}` : ''}`, child);
  }
}

/**
 * Samples a process's resident set size (VmRSS in /proc/<pid>/status) every intervalMs and
 * keeps the peak since the last reset() and over the whole run. Linux only; elsewhere the
 * peaks stay null.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private peakKb = 0;
  private overallKb = 0;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 250,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.sampleOnce(), this.intervalMs);
    this.timer.unref();
    void this.sampleOnce();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Starts a new phase: the phase peak restarts from the current RSS (one sample is taken at once). */
  async reset(): Promise<void> {
    await this.inFlight;
    this.peakKb = 0;
    await this.sampleOnce();
  }

  /** Peak MiB since reset(), including one last sample taken now. */
  async phasePeakMb(): Promise<number | null> {
    await this.sampleOnce();
    return this.peakKb > 0 ? this.peakKb / 1024 : null;
  }

  overallPeakMb(): number | null {
    return this.overallKb > 0 ? this.overallKb / 1024 : null;
  }

  private sampleOnce(): Promise<void> {
    this.inFlight = this.inFlight.then(async () => {
      const kb = await readRssKb(this.pid);
      if (kb === null) return;
      this.peakKb = Math.max(this.peakKb, kb);
      this.overallKb = Math.max(this.overallKb, kb);
    });
    return this.inFlight;
  }
}

async function readRssKb(pid: number): Promise<number | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) : null;
  } catch {
    return null; // not Linux, or the process has exited
  }
}

/**
 * The real API (`api/main.ts`) and worker (`worker/main.ts`) as child processes sharing `env`,
 * each registered on `cleanup`; not waited for (see waitForHttp).
 */
/** The issue's memory budget for every node process of the service, worker threads included. */
export const RSS_BUDGET_MB = 300;

/**
 * One line per process with its peak RSS over the whole benchmark (`VmRSS` covers the CPU
 * pool's threads too), and a warning for each above RSS_BUDGET_MB. Returns the warnings.
 */
export function reportPeakRss(log: (line: string) => void, samplers: { name: string; sampler: RssSampler }[]): string[] {
  const warnings: string[] = [];
  for (const { name, sampler } of samplers) {
    const peak = sampler.overallPeakMb();
    log(`peak RSS ${name}: ${peak === null ? 'not sampled' : `${peak.toFixed(0)} MiB`} (budget ${RSS_BUDGET_MB} MiB)`);
    if (peak !== null && peak > RSS_BUDGET_MB) warnings.push(`${name} peaked at ${peak.toFixed(0)} MiB RSS, above the ${RSS_BUDGET_MB} MiB budget`);
  }
  for (const warning of warnings) log(`WARNING: ${warning}`);
  return warnings;
}

export function spawnApiAndWorker(env: Record<string, string>, cleanup: { push(name: string, run: () => Promise<void>): void }): {
  api: ChildProcessHandle;
  worker: ChildProcessHandle;
} {
  const api = spawnChildProcess({ name: 'api', part: 'api', env });
  cleanup.push('stop the API', () => api.stop());
  const worker = spawnChildProcess({ name: 'worker', part: 'worker', env });
  cleanup.push('stop the worker', () => worker.stop());
  return { api, worker };
}
