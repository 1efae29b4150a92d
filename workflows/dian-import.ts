import { ActivityFailure, ApplicationFailure, continueAsNew, executeChild, patched, proxyActivities, uuid4, workflowInfo } from '@temporalio/workflow';
import type { createDianImportActivities } from '../activities/dian-imports';
import type { createIngestionActivities } from '../activities/ingestion';
import { importFileWorkflow } from './import-file';
import { settlingOnCancellation } from './settle-on-cancellation';
import { OUTAGE_TOLERANT_RETRY_POLICY } from './outage-tolerant-retry';
import { workflowIdsFor } from './messages';
import { searchAttributePairs, searchAttributes } from '../domain/search-attributes';

type DianImportActivities = ReturnType<typeof createDianImportActivities>;
type IngestionActivities = ReturnType<typeof createIngestionActivities>;

/** Documents fetched and imported at the same time within one run started before the patch 'dian-import-batches'. */
export const DIAN_IMPORT_CONCURRENCY = 4;
/** CUFEs read per batch; the run continues as new between batches once its history is long. */
const BATCH_SIZE = 100;
/**
 * CUFEs per importDianBatch activity: long enough that the per-activity cost (a task, three
 * history events) is small next to the documents' own work, short enough that a retried batch
 * redoes little (it resumes from its last heartbeat anyway).
 */
export const DOCUMENTS_PER_ACTIVITY = 50;
const MAX_HISTORY_EVENTS = 5_000;
/** Runs started before it imported each document with an activity and a child workflow. */
export const DIAN_IMPORT_BATCHES_PATCH = 'dian-import-batches';

export type DianImportInput = { importId: number; progress?: { offset: number; total: number } };

// The activities that ask DIAN: DIAN's 8 failures counted by them (activities/dian-imports.ts DIAN_IMPORT_ATTEMPTS).
const { listDianImportCufes, fetchDianDocument } = proxyActivities<DianImportActivities>({
  startToCloseTimeout: '2 minutes',
  retry: OUTAGE_TOLERANT_RETRY_POLICY,
});
const { finishDianImport, failDianImport, dianImportRecord, dianImportBatch } = proxyActivities<DianImportActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
const { requestDianBulkDownload } = proxyActivities<DianImportActivities>({
  startToCloseTimeout: '2 minutes',
  retry: OUTAGE_TOLERANT_RETRY_POLICY,
});
/** Retrying is the polling: DIAN prepares the CSV asynchronously (about an hour at most here). */
const { collectDianBulkDownload } = proxyActivities<DianImportActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumInterval: '2 minutes', maximumAttempts: 35 },
});
const { importDianBatch } = proxyActivities<DianImportActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: OUTAGE_TOLERANT_RETRY_POLICY,
});
const { awaitUploadedFile } = proxyActivities<DianImportActivities>({
  startToCloseTimeout: '10 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 1.5, maximumInterval: '30 seconds' },
});
const { publishEvents } = proxyActivities<IngestionActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * DOCUMENTS_PER_ACTIVITY documents in one activity (fetched, stored, imported, announced: see
 * importDianBatch). A batch that keeps failing (DIAN unreachable through its 8 attempts, or our
 * Postgres or blob store down through the policy's 30) leaves its documents skipped, as a
 * document that cannot be fetched always was; it never fails the run.
 */
async function importBatch(importId: number, offset: number): Promise<void> {
  try {
    await importDianBatch(importId, offset, DOCUMENTS_PER_ACTIVITY);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
  }
}

/**
 * One document of a run started before the patch 'dian-import-batches': fetched from DIAN and stored (type DIAN), then imported by importFileWorkflow
 * as an awaited child, the same path as uploads. A document that cannot be fetched or imported
 * counts as skipped; it never fails the run.
 */
async function importOne(importId: number, cufe: string): Promise<void> {
  let outcome;
  try {
    outcome = await fetchDianDocument(importId, cufe);
  } catch (error) {
    if (error instanceof ActivityFailure) return;
    throw error;
  }
  if (!('fileId' in outcome)) return;
  const { fileId } = outcome;
  try {
    await executeChild(importFileWorkflow, {
      workflowId: workflowIdsFor(workflowInfo().taskQueue).importFile(fileId),
      // The child is found by the same attributes as an upload's import, in the run's company.
      typedSearchAttributes: searchAttributePairs({
        companyId: workflowInfo().typedSearchAttributes.get(searchAttributes.CompanyId),
        uploadedFileId: fileId,
        cufe,
      }),
      args: [{ fileId }],
    });
  } catch (error) {
    // Started by the reconciliation schedule first: wait for its outcome instead.
    if ((error as Error).name === 'WorkflowExecutionAlreadyStartedError') await awaitUploadedFile(fileId);
    else if (!(error instanceof Error && error.name === 'ChildWorkflowFailure')) throw error;
  }
}

/**
 * The run's listing: the uploaded export, the simulator's listing, or DIAN's bulk download
 * (assumed, DIAN_BULK_LISTING) asked for one ≤3-month window at a time, each CSV added to the run.
 */
async function listRun(importId: number): Promise<number> {
  const listing = await listDianImportCufes(importId);
  if (typeof listing === 'number') return listing;
  let total = 0;
  for (const window of listing.windows) {
    const trackId = await requestDianBulkDownload(importId, window);
    total = await collectDianBulkDownload(importId, trackId);
  }
  return total;
}

/**
 * A tax-authority import run: list the CUFEs (uploaded export or DIAN listing, listRun), import them in
 * batches of DOCUMENTS_PER_ACTIVITY (one activity each), count, and publish dian_import.completed (status DONE) or
 * dian_import.failed (status ERROR). Documents already present are skipped (CUFE guard), so a
 * re-run or a resumed run never duplicates. Cancelled, the run ends ERROR (code cancelled) with
 * dian_import.failed; its documents' imports, cancelled with it, settle themselves.
 */
export async function dianImportWorkflow(input: DianImportInput): Promise<{ status: 'DONE' | 'ERROR' }> {
  return settlingOnCancellation({ kind: 'dianImport', importId: input.importId }, () => importRun(input));
}

async function importRun(input: DianImportInput): Promise<{ status: 'DONE' | 'ERROR' }> {
  let status: 'DONE' | 'ERROR' = 'DONE';
  try {
    const total = input.progress?.total ?? (await listRun(input.importId));
    let offset = input.progress?.offset ?? 0;
    const inBatches = patched(DIAN_IMPORT_BATCHES_PATCH);
    while (offset < total) {
      if (inBatches) {
        await importBatch(input.importId, offset);
        offset = Math.min(total, offset + DOCUMENTS_PER_ACTIVITY);
      } else {
        const cufes = await dianImportBatch(input.importId, offset, BATCH_SIZE);
        if (cufes.length === 0) break;
        let next = 0;
        const lane = async () => {
          while (next < cufes.length) await importOne(input.importId, cufes[next++]!);
        };
        await Promise.all(Array.from({ length: Math.min(DIAN_IMPORT_CONCURRENCY, cufes.length) }, lane));
        offset += cufes.length;
      }
      // Thousands of documents would outgrow one history (about ten events each).
      if (offset < total && (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > MAX_HISTORY_EVENTS)) {
        await continueAsNew<typeof dianImportWorkflow>({ importId: input.importId, progress: { offset, total } });
      }
    }
    await finishDianImport(input.importId, total);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    status = 'ERROR';
    const cause = error.cause;
    const code = cause instanceof ApplicationFailure && cause.type ? cause.type : 'dian_unavailable';
    await failDianImport(input.importId, code, cause?.message || 'The import could not be completed.');
  }
  const { company_id: companyId, ...record } = await dianImportRecord(input.importId);
  await publishEvents([{ id: uuid4(), companyId, type: status === 'DONE' ? 'dian_import.completed' : 'dian_import.failed', data: record }]);
  return { status };
}
