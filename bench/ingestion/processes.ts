import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

const projectRoot = path.resolve(__dirname, '../..');
const TAIL_LINES = 60;

export type NodeChild = {
  name: string;
  pid: number;
  /** Why it exited (`code 1`, `signal SIGKILL`), or undefined while it runs. */
  exitDescription(): string | undefined;
  /** The last lines it wrote to stdout/stderr, for error reports. */
  outputTail(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it has exited. */
  stop(): Promise<void>;
};

/**
 * `node --import tsx <script>` in the project directory with extra environment variables. The
 * spawned pid is the Node process itself (tsx is loaded as a module, not a wrapper process),
 * so /proc/<pid> is the process under measurement.
 */
export function spawnNodeScript(name: string, script: string, env: Record<string, string>): NodeChild {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, script)], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const tail: string[] = [];
  const collect = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      tail.push(line);
      if (tail.length > TAIL_LINES) tail.shift();
    }
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let exit: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exit = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
  });
  child.once('error', (error) => {
    exit ??= `spawn error: ${error.message}`;
  });
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  return {
    name,
    pid: child.pid,
    exitDescription: () => exit,
    outputTail: () => tail.join('\n'),
    async stop() {
      if (exit !== undefined) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Error text with the child's last output appended. */
export function withOutput(message: string, ...children: NodeChild[]): Error {
  const parts = [message];
  for (const child of children) {
    const output = child.outputTail();
    if (output) parts.push(`--- ${child.name} (pid ${child.pid}, ${child.exitDescription() ?? 'running'}) output ---\n${output}`);
  }
  return new Error(parts.join('\n'));
}

/**
 * Samples a process's resident set size (VmRSS in /proc/<pid>/status) every intervalMs; the
 * peak since the last reset() is what a phase reports. Linux only (null elsewhere).
 */
export class RssSampler {
  private timer: NodeJS.Timeout | undefined;
  private peakKb = 0;
  private overallKb = 0;
  private inFlight: Promise<void> = Promise.resolve();

  constructor(private readonly pid: number, private readonly intervalMs = 250) {}

  start(): void {
    this.timer ??= setInterval(() => void this.sampleOnce(), this.intervalMs);
    this.timer.unref();
    void this.sampleOnce();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Starts a new phase: the phase peak restarts from the current RSS. */
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
