import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';

const projectRoot = path.resolve(__dirname, '../..');
const TAIL_LINES = 60;

export type WorkerProcess = {
  pid: number;
  /** Rejects when the process exits before stop() was called (use it in a Promise.race). */
  unexpectedExit: Promise<never>;
  /** The last lines the process wrote, for error reports. */
  outputTail(): string;
  stop(): Promise<void>;
};

/**
 * The real worker (`node --import tsx worker/main.ts`) in its own process, so its memory can be
 * measured alone and it never shares an event loop with the load generator.
 */
export function startWorkerProcess(env: Record<string, string>): WorkerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, 'worker/main.ts')], {
    cwd: projectRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error('could not spawn the worker process');
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

  let stopping = false;
  let exitDescription: string | null = null;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitDescription = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
  });
  const unexpectedExit = new Promise<never>((_, reject) => {
    child.once('error', reject);
    void exited.then(() => {
      if (!stopping) reject(new Error(`the worker process exited (${exitDescription})\n--- worker output ---\n${tail.join('\n') || '(none)'}`));
    });
  });
  unexpectedExit.catch(() => undefined); // observed through Promise.race by the caller

  return {
    pid: child.pid,
    unexpectedExit,
    outputTail: () => tail.join('\n'),
    async stop() {
      stopping = true;
      if (exitDescription !== null) return;
      child.kill('SIGTERM'); // the worker drains (config/shutdown.ts) and exits
      const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(killer);
    },
  };
}

/** Resolves once at least one worker polls both the workflow and the activity side of the task queue. */
export async function waitForPollers(
  client: Client,
  taskQueue: string,
  timeoutMs: number,
  abort: Promise<never>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const hasPollers = async (taskQueueType: 1 | 2) => {
    // 1 = TASK_QUEUE_TYPE_WORKFLOW, 2 = TASK_QUEUE_TYPE_ACTIVITY
    const response = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: taskQueue },
      taskQueueType,
    });
    return (response.pollers?.length ?? 0) > 0;
  };
  const poll = async () => {
    while (Date.now() < deadline) {
      if ((await hasPollers(1)) && (await hasPollers(2))) return;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    throw new Error(`no worker polled task queue ${taskQueue} within ${timeoutMs / 1000} s`);
  };
  await Promise.race([poll(), abort]);
}

/**
 * Samples a process's resident set size (VmRSS in /proc/<pid>/status) every intervalMs and
 * keeps the peak since the last reset() and over the whole run. Linux only; elsewhere the
 * peaks stay null.
 */
export class RssSampler {
  private timer: NodeJS.Timeout | null = null;
  private phasePeakKb: number | null = null;
  private overallPeakKb: number | null = null;

  constructor(
    private readonly pid: number,
    private readonly intervalMs = 500,
  ) {}

  start(): void {
    void this.sample();
    this.timer = setInterval(() => void this.sample(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Starts a new phase; takes one sample at once so a short phase still has one. */
  async reset(): Promise<void> {
    this.phasePeakKb = null;
    await this.sample();
  }

  /** Peak since reset(), in MiB; takes one last sample first. */
  async phasePeakMb(): Promise<number | null> {
    await this.sample();
    return this.phasePeakKb === null ? null : this.phasePeakKb / 1024;
  }

  overallPeakMb(): number | null {
    return this.overallPeakKb === null ? null : this.overallPeakKb / 1024;
  }

  private async sample(): Promise<void> {
    let status: string;
    try {
      status = await readFile(`/proc/${this.pid}/status`, 'utf8');
    } catch {
      return; // not Linux, or the process is gone
    }
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    if (!match) return;
    const kb = Number(match[1]);
    this.phasePeakKb = Math.max(this.phasePeakKb ?? 0, kb);
    this.overallPeakKb = Math.max(this.overallPeakKb ?? 0, kb);
  }
}
