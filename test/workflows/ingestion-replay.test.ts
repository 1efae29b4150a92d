import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker, type ReplayWorkerOptions } from '@temporalio/worker';
import { serviceWorkflows } from '../support/workflow-bundle';
import { quietTemporalRuntime } from '../support/worker';

// Import and DIAN import histories recorded by older code (histories/record-ingestion-histories.ts)
// must replay on today's workflows: a run in flight during a deploy finishes on the new code, so
// a change of command sequence goes behind patched() (or a new workflow type) and these replays
// prove it. v2-*: importFileWorkflowV2, the patch-free type (decision 0018); v3-*: importFileWorkflowV3,
// which imports a small file inline (decision 0019), one of them a file over the inline limit.
const directory = path.resolve(__dirname, 'histories', 'ingestion');

test('import and DIAN import histories recorded before the patches replay deterministically', async (t) => {
  quietTemporalRuntime();
  const files = (await readdir(directory)).filter((name) => name.endsWith('.binpb')).sort();
  t.true(files.length >= 12, `found ${files.length} histories`);
  t.true(files.filter((file) => file.startsWith('v2-import-')).length >= 3, 'the histories of importFileWorkflowV2');
  t.true(files.filter((file) => file.startsWith('v3-import-')).length >= 4, 'the histories of importFileWorkflowV3');
  const decoded = await Promise.all(files.map(async (file) => temporal.api.history.v1.History.decode(await readFile(path.join(directory, file)))));
  // Child workflow ids start with the task queue (workflows/messages.ts), so the replay worker
  // must poll the queue they were recorded on (one world: the same queue for every history);
  // the SDK lets an explicit taskQueue override its fake replay queue.
  const recordedQueue = decoded[0]?.events[0]?.workflowExecutionStartedEventAttributes?.taskQueue?.name ?? undefined;
  const options = { ...serviceWorkflows(), taskQueue: recordedQueue } as unknown as ReplayWorkerOptions;
  const histories = decoded.map((history, index) => ({ workflowId: files[index]!.replace(/\.binpb$/, ''), history }));
  const replayed: string[] = [];
  for await (const result of Worker.runReplayHistories(options, histories)) {
    t.is(result.error, undefined, `${result.workflowId}: ${String(result.error)}`);
    replayed.push(result.workflowId);
  }
  t.deepEqual(replayed.sort(), files.map((file) => file.replace(/\.binpb$/, '')).sort());
});
