import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { partNodeArguments, WORKER_THREADS_PRELOAD } from '../../scripts/build-parts';

const run = promisify(execFile);

// The worker process keeps Node's source maps in its main thread and turns them off in the
// threads it starts (the SDK's workflow thread, the CPU pool): worker/threads-without-source-maps.cjs.

test('the compiled worker runs with the preload that turns source maps off in its threads only', (t) => {
  const worker = partNodeArguments('worker', '/compiled');
  t.deepEqual(worker.slice(-4), ['--require', WORKER_THREADS_PRELOAD, '--enable-source-maps', '/compiled/worker.js']);
  t.false(partNodeArguments('api', '/compiled').includes(WORKER_THREADS_PRELOAD), 'the API keeps source maps in its threads');
});

test('with the preload, the main thread has source maps and a worker thread has none', async (t) => {
  const script = [
    "const { Worker } = require('node:worker_threads');",
    "const thread = new Worker('require(\"node:worker_threads\").parentPort.postMessage(process.sourceMapsEnabled)', { eval: true });",
    "thread.once('message', (inThread) => { console.log(JSON.stringify({ main: process.sourceMapsEnabled, thread: inThread })); thread.terminate(); });",
  ].join('\n');
  const { stdout } = await run(process.execPath, ['--require', WORKER_THREADS_PRELOAD, '--enable-source-maps', '-e', script]);
  t.deepEqual(JSON.parse(stdout.trim()), { main: true, thread: false });
  const without = await run(process.execPath, ['--enable-source-maps', '-e', script]);
  t.deepEqual(JSON.parse(without.stdout.trim()), { main: true, thread: true }, 'without it a thread inherits them');
});
