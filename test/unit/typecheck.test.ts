import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';

const run = promisify(execFile);
const root = path.resolve(__dirname, '../..');

// Tests run the sources through tsx, which strips types without checking them; this is
// where strict type errors fail the suite.
test('the whole project type-checks in strict mode', async (t) => {
  try {
    await run(path.join(root, 'node_modules/.bin/tsc'), ['--noEmit', '-p', path.join(root, 'tsconfig.json')], {
      cwd: root,
      maxBuffer: 16 * 1024 * 1024,
    });
    t.pass();
  } catch (error) {
    const failure = error as { stdout?: string; stderr?: string };
    t.fail(`tsc reported errors:\n${failure.stdout ?? ''}${failure.stderr ?? ''}`);
  }
});
