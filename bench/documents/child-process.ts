import { spawn } from 'node:child_process';
import path from 'node:path';

export type ChildProcess = {
  name: string;
  url: string;
  pid: number;
  /** False once the process has exited, for whatever reason. */
  alive(): boolean;
  /** The last lines the process wrote, for error reports. */
  outputTail(): string;
  stop(): Promise<void>;
};

const projectRoot = path.resolve(__dirname, '../..');
const TAIL_LINES = 40;

/**
 * Runs a TypeScript entry point in its own Node process (`node --import tsx <script>`) and waits
 * until `readyPath` gives any HTTP answer at all: the API answers /healthz with 503 "degraded"
 * when Temporal is absent, which is all this benchmark needs (the lists do not use Temporal).
 */
export async function startChildProcess(options: {
  name: string;
  script: string;
  port: number;
  env: Record<string, string>;
  readyPath: string;
  readyTimeoutMs?: number;
}): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(projectRoot, options.script)], {
    cwd: projectRoot,
    env: { ...process.env, ...options.env },
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

  let exitDescription: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitDescription = signal ? `signal ${signal}` : `code ${code}`;
      resolve();
    });
  });
  let spawnError: Error | undefined;
  child.once('error', (error) => {
    spawnError = error;
  });

  const url = `http://127.0.0.1:${options.port}`;
  const handle: ChildProcess = {
    name: options.name,
    url,
    pid: child.pid ?? -1,
    alive: () => exitDescription === undefined && spawnError === undefined,
    outputTail: () => tail.join('\n'),
    async stop() {
      if (exitDescription !== undefined || child.pid === undefined) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let lastProblem = 'no answer yet';
  try {
    for (;;) {
      if (spawnError) throw spawnError;
      if (exitDescription !== undefined) throw new Error(`${options.name} exited (${exitDescription}) during start-up`);
      if (Date.now() > deadline) throw new Error(`${options.name} did not answer ${options.readyPath} in time (${lastProblem})`);
      try {
        const response = await fetch(`${url}${options.readyPath}`, { signal: AbortSignal.timeout(5000) });
        await response.text();
        break; // any HTTP answer: the server is up
      } catch (error) {
        lastProblem = error instanceof Error ? error.message : String(error);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await handle.stop();
    const output = handle.outputTail();
    throw new Error(`${error instanceof Error ? error.message : String(error)}${output ? `\n--- ${options.name} output ---\n${output}` : ''}`);
  }
  return handle;
}
