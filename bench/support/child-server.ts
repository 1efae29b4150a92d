import { spawn } from 'node:child_process';
import path from 'node:path';

export type ChildServer = {
  name: string;
  url: string;
  pid: number;
  /** The last lines the process wrote, for error reports. */
  outputTail(): string;
  stop(): Promise<void>;
};

const projectRoot = path.resolve(__dirname, '../..');
const TAIL_LINES = 40;

/**
 * Runs a TypeScript entry point in its own Node process (`node --import tsx <script>`) so the
 * load generator never shares its event loop, and waits until `readyPath` answers 200.
 */
export async function startChildServer(options: {
  name: string;
  script: string;
  port: number;
  env: Record<string, string>;
  readyPath: string;
  readyTimeoutMs?: number;
}): Promise<ChildServer> {
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

  let exitCode: number | null | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', (code, signal) => {
      exitCode = code ?? (signal ? -1 : null);
      resolve();
    });
  });
  const spawnError = new Promise<never>((_, reject) => child.once('error', reject));
  spawnError.catch(() => undefined);

  const url = `http://127.0.0.1:${options.port}`;
  const server: ChildServer = {
    name: options.name,
    url,
    pid: child.pid ?? -1,
    outputTail: () => tail.join('\n'),
    async stop() {
      if (exitCode !== undefined || child.pid === undefined) return;
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    },
  };

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let lastProblem = 'no answer yet';
  try {
    while (true) {
      if (exitCode !== undefined) throw new Error(`${options.name} exited (code ${exitCode}) during start-up`);
      if (Date.now() > deadline) throw new Error(`${options.name} was not ready within the timeout (${lastProblem})`);
      try {
        const response = await Promise.race([
          fetch(`${url}${options.readyPath}`, { signal: AbortSignal.timeout(3000) }),
          spawnError,
        ]);
        const body = await response.text();
        if (response.status === 200) break;
        lastProblem = `${options.readyPath} answered ${response.status}: ${body.slice(0, 300)}`;
      } catch (error) {
        lastProblem = error instanceof Error ? error.message : String(error);
        if (child.pid === undefined) throw error; // spawning itself failed
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } catch (error) {
    await server.stop();
    const output = server.outputTail();
    throw new Error(`${error instanceof Error ? error.message : String(error)}${output ? `\n--- ${options.name} output ---\n${output}` : ''}`);
  }
  return server;
}
