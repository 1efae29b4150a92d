import test from 'ava';
import { serviceWorkflows } from '../support/workflow-bundle';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Worker } from '@temporalio/worker';
import { quietTemporalRuntime } from '../support/worker';

// Histories recorded by older code (see histories/record-webhook-histories.ts and
// record-cancelled-histories.ts) must replay on today's workflows: delivery runs live ~2.6 h and
// endpoint entities for ever, so a change of behaviour goes behind patched() (or follows from an
// activity result recorded in the history) and these replays prove it. lean-0-*: recorded before
// deliveries skipped outcomes that change nothing and entities acknowledged counted failures.
// *-cancelled-*: imports, exports and DIAN events cancelled before they settled their record.
// v2-delivery-*: webhookDeliveryWorkflowV2, the patch-free type every delivery has run since
// (decision 0018) until webhookDeliveryWorkflowV3; v3-delivery-*: webhookDeliveryWorkflowV3, whose
// attempts run inline (decision 0020); v2-export-*: exportDocumentWorkflowV2 (record-export-histories.ts).
// endpoint-outcome-dropped-at-continue-as-new: an entity run before the settle patch that dropped
// the outcome signalled while it continued as new; endpoint-settled-continue-as-new-with-pending:
// one after it (refused continue-as-new, messages handed to the next run). Both recorded on the
// dev server by a load script sending outcomes to an entity with a history limit of 30.
const directory = path.resolve(__dirname, 'histories');

test('workflow histories recorded before the patches replay deterministically', async (t) => {
  quietTemporalRuntime();
  const files = (await readdir(directory)).filter((name) => name.endsWith('.binpb')).sort();
  t.true(files.length >= 9, `found ${files.length} histories`);
  t.true(files.filter((file) => file.startsWith('lean-0-')).length >= 8, 'the histories recorded before the lean pipeline');
  t.true(files.filter((file) => file.includes('-cancelled-')).length >= 4, 'the histories recorded before settle-on-cancellation');
  t.true(files.filter((file) => file.startsWith('v2-delivery-')).length >= 5, 'the histories of webhookDeliveryWorkflowV2');
  t.true(files.filter((file) => file.startsWith('v3-delivery-')).length >= 5, 'the histories of webhookDeliveryWorkflowV3');
  t.true(files.filter((file) => file.startsWith('v2-export-')).length >= 4, 'the histories of exportDocumentWorkflowV2');
  const histories = (async function* () {
    for (const file of files) {
      const history = temporal.api.history.v1.History.decode(await readFile(path.join(directory, file)));
      yield { workflowId: file.replace(/\.binpb$/, ''), history };
    }
  })();
  const results = Worker.runReplayHistories(serviceWorkflows(), histories);
  const replayed: string[] = [];
  for await (const result of results) {
    t.is(result.error, undefined, `${result.workflowId}: ${String(result.error)}`);
    replayed.push(result.workflowId);
  }
  t.deepEqual(replayed.sort(), files.map((file) => file.replace(/\.binpb$/, '')).sort());
});
