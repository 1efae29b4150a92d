import { spawn } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';

const root = path.resolve(__dirname, '../..');

// A process whose standard output can no longer be written (a closed terminal answers EIO; here
// a read-only descriptor answers EBADF): the logger must fall silent, not take the process down
// or hold it forever, so a part of `npm start` still drains and exits.
const CHILD = `
const { createLogger } = require('./config/logger.ts');
const { installProcessSafetyNet } = require('./config/process-safety.ts');
const logger = createLogger({ logLevel: 'info' }, 'probe');
installProcessSafetyNet(logger);
logger.info('a line nobody can read');
logger.fatal('a fatal line, flushed synchronously');
setTimeout(() => {
  logger.warn('still logging after the output failed');
  require('node:fs').writeSync(2, 'drained\\n');
  process.exit(0);
}, 50);
`;

test('a logger whose standard output fails falls silent: the process goes on and exits', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'logger-output-'));
  const readOnly = path.join(dir, 'read-only');
  writeFileSync(readOnly, '');
  const stdout = openSync(readOnly, 'r');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', '-e', CHILD], { cwd: root, stdio: ['ignore', stdout, 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => child.once('exit', (...result) => resolve(result)));
    clearTimeout(killer);
    t.deepEqual({ code, signal }, { code: 0, signal: null }, stderr);
    t.is(stderr, 'drained\n');
  } finally {
    closeSync(stdout);
    await rm(dir, { recursive: true, force: true });
  }
});
