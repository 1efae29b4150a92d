import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';

// A workflow task waits for its local activities, heartbeating, and a stopping worker waits for
// its workflow tasks: a local activity that keeps failing (bookkeeping retries without a limit)
// held the worker for ever. Found when the fuzz test's worker, stopped after its database was
// dropped, never exited: its inline attempt failed, and recordLostAttempt kept failing. The
// worker's shutdownForceTime (TEMPORAL_SHUTDOWN_FORCE_SECONDS) ends such a drain; the workflow
// task is left to time out and run on another worker.
const root = path.resolve(__dirname, '../..');

test('a worker stopped while a local activity keeps failing (its database gone) still ends, within its force time', async (t) => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', path.join(root, 'test/support/stuck-drain-worker.ts')], {
    cwd: root,
    env: { ...process.env, FORCE_SECONDS: '3' },
    timeout: 60_000,
  });
  const { outcome, seconds } = JSON.parse(stdout.trim().split('\n').pop()!) as { outcome: string; seconds: number };
  t.not(outcome, 'drained', 'given up, not drained');
  t.true(seconds >= 2.5 && seconds < 10, `ended ${seconds} s after the stop (${outcome})`);
});
