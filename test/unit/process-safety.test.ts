import { spawnSync } from 'node:child_process';
import path from 'node:path';
import test from 'ava';

const root = path.resolve(__dirname, '../..');
const run = (mode: string) =>
  spawnSync(process.execPath, ['--import', 'tsx', path.join(root, 'test/support/process-safety-child.ts'), mode], { cwd: root, encoding: 'utf8', timeout: 20_000 });

for (const mode of ['stream', 'reset']) {
  test(`an unhandled stream error (${mode}) is logged and the process keeps running`, (t) => {
    const result = run(mode);
    t.is(result.status, 0, result.stderr);
    t.is(result.stdout, 'still running\n');
    t.regex(result.stderr, /stray stream error survived/);
  });
}

test('a programming error is logged as fatal and still ends the process', (t) => {
  const result = run('bug');
  t.is(result.status, 1);
  t.is(result.stdout, '');
  t.regex(result.stderr, /uncaught exception; exiting/);
  t.regex(result.stderr, /TypeError/);
});
