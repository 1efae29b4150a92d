import { spawnChildProcess, type ChildProcessHandle } from '../support/child-process';

/** Kept for imports of the old path: child processes live in bench/support/child-process.ts. */
export { RssSampler, withOutput } from '../support/child-process';
export type NodeChild = ChildProcessHandle;

/** `node --import tsx <script>` in the project directory with extra environment variables, not waited for. */
export function spawnNodeScript(name: string, script: string, env: Record<string, string>): NodeChild {
  const child = spawnChildProcess({ name, script, env });
  if (child.pid === -1) throw new Error(`could not start ${name}`);
  return child;
}
