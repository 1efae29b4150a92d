import { ActivityFailure, ApplicationFailure, proxyActivities, proxyLocalActivities, uuid4 } from '@temporalio/workflow';
import type { createExportActivities } from '../activities/exports';
import type { createIngestionActivities } from '../activities/ingestion';
import { settlingOnCancellation } from './settle-on-cancellation';
import { OUTAGE_TOLERANT_RETRY_POLICY } from './outage-tolerant-retry';

type ExportActivities = ReturnType<typeof createExportActivities>;
type IngestionActivities = ReturnType<typeof createIngestionActivities>;


const { postExport } = proxyActivities<ExportActivities>({
  // An attempt makes up to four requests of at most 15 s each.
  startToCloseTimeout: '2 minutes',
  // The attempt heartbeats (activities/exports.ts): a worker killed mid-export is retried after
  // 75 s, not 2 min. Not sooner: a worker cut off from Temporal (not dead) may still be posting,
  // for up to 60 s of requests, and Alegra takes no idempotency key; past 75 s its requests are
  // over, and a retry finds the export recorded and posts nothing.
  heartbeatTimeout: '75 seconds',
  // The software's 8 failures (activities/exports.ts EXPORT_ATTEMPTS, docs/exports.md); the 30
  // attempts' bound also limits re-posts to software that takes no idempotency key.
  retry: OUTAGE_TOLERANT_RETRY_POLICY,
});
const bookkeepingOptions = { startToCloseTimeout: '1 minute', retry: { initialInterval: '1 second', maximumInterval: '1 minute' } } as const;
const { failExport } = proxyActivities<ExportActivities>(bookkeepingOptions);
const { publishEvents } = proxyActivities<IngestionActivities>(bookkeepingOptions);
// The same short database steps inside the workflow task that needs them (exportDocumentWorkflowV2).
const localExport = proxyLocalActivities<ExportActivities>(bookkeepingOptions);
const localIngestion = proxyLocalActivities<IngestionActivities>(bookkeepingOptions);

/** Where an export's recording steps run: activity tasks (the first type) or local activities (V2). */
type RecordingSteps = { failExport: typeof failExport; publishEvents: typeof publishEvents };
const asActivities: RecordingSteps = { failExport, publishEvents };
const asLocalActivities: RecordingSteps = { failExport: localExport.failExport, publishEvents: localIngestion.publishEvents };

const KNOWN_CODES: ReadonlySet<string> = new Set([
  'invalid_credentials', 'validation_failed', 'duplicate_document', 'rate_limited', 'unavailable', 'timeout',
  'unexpected_response', 'integration_not_found', 'invalid_integration_config', 'document_not_found',
]);

/**
 * One export: post it (Temporal retries transient failures, invisibly to clients), then emit
 * exactly one event — export.succeeded, or export.failed once the retries are exhausted or
 * the failure cannot be fixed by retrying. Cancelled, the export ends failed (code cancelled)
 * with export.failed.
 */
export async function exportDocumentWorkflowV2(input: { exportId: number }): Promise<'succeeded' | 'failed'> {
  return settlingOnCancellation({ kind: 'export', exportId: input.exportId }, () => exportDocument(input, asLocalActivities), 'always');
}

/**
 * The first export type, which every export ran until exportDocumentWorkflowV2: kept registered for
 * its runs alive at a deploy and the replay of their histories. It records the failure and
 * publishes the event in activity tasks of their own; V2 runs them as local activities (one
 * workflow task and one activity task less per export) and asks no patch (decision 0018).
 */
export async function exportDocumentWorkflow(input: { exportId: number }): Promise<'succeeded' | 'failed'> {
  return settlingOnCancellation({ kind: 'export', exportId: input.exportId }, () => exportDocument(input, asActivities));
}

async function exportDocument(input: { exportId: number }, { failExport, publishEvents }: RecordingSteps): Promise<'succeeded' | 'failed'> {
  try {
    const { company_id: companyId, ...record } = await postExport(input.exportId);
    if (record.status === 'succeeded') {
      await publishEvents([{ id: uuid4(), companyId, type: 'export.succeeded', data: record }]);
      return 'succeeded';
    }
    return 'failed'; // already ended by an earlier run; its event was published then
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    const cause = error.cause;
    const type = cause instanceof ApplicationFailure ? cause.type : undefined;
    const code = type && KNOWN_CODES.has(type) ? type : 'export_failed';
    const message = code === 'export_failed' ? 'The export could not be completed; it can be requested again.' : (cause?.message ?? 'The export failed.');
    const { company_id: companyId, ...record } = await failExport(input.exportId, code, message);
    await publishEvents([{ id: uuid4(), companyId, type: 'export.failed', data: record }]);
    return 'failed';
  }
}
