import { ActivityFailure, ApplicationFailure, isCancellation, patched, proxyActivities, proxyLocalActivities, TimeoutFailure, uuid4 } from '@temporalio/workflow';
import type { createDianDocumentActivities } from '../activities/dian-documents';
import type { createIngestionActivities, EventToPublish, ImportedFile, ImportOutcome } from '../activities/ingestion';
import { importEvents } from '../domain/ingestion/import-events';
import { importsInline } from '../domain/ingestion/import-lane';
import { settlingOnCancellation } from './settle-on-cancellation';

type IngestionActivities = ReturnType<typeof createIngestionActivities>;
type DianDocumentActivities = ReturnType<typeof createDianDocumentActivities>;

/**
 * The import activities end the retries themselves after 6 attempts for a failure of their own,
 * but not for a dependency that is down (Postgres, the blob store, Temporal), which is waited out
 * at most a minute between attempts (activities/dependency-retries.ts). The 30 attempts here
 * (about 26 minutes) bound what the activity never sees: a timeout, or a worker killed mid-import,
 * over and over by a file that crashes it, which before this limit was retried for ever.
 */
const IMPORT_RETRY = { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 30 } as const;
const { importUploadedFile, importAndPublishUploadedFile } = proxyActivities<IngestionActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: IMPORT_RETRY,
});
// A small file's import inside the workflow's first task (decision 0019). Its retries wait on a
// workflow timer (localRetryThreshold), not inside the task, so a database outage never holds
// the worker's workflow-task slots for the length of a backoff.
const { importAndPublishUploadedFile: importAndPublishInline } = proxyLocalActivities<IngestionActivities>({
  startToCloseTimeout: '2 minutes',
  localRetryThreshold: '1 second',
  retry: IMPORT_RETRY,
});
const { failUploadedFile, uploadedFileRecord, contactRecord, publishEvents, resumeUnfinishedImports } = proxyActivities<IngestionActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

// Short database steps run as local activities: no task of their own, no round trip to the server.
const local = proxyLocalActivities<IngestionActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const { importedInvoicesForDianSync, syncDianEvents, syncDianEventsOf } = proxyActivities<DianDocumentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});
// The simulator must know an imported invoice before its 030 (DIAN knows every validated one):
// given up after 5 attempts (30 s), a Postgres or simulator outage longer than that left the
// document unknown to it for good, and every later event was refused (LGC03). 12 attempts
// outlast 7 minutes. This file's events wait for them (an outage of Postgres holds those anyway),
// and only companies in environment simulator register at all.
const { registerImportedWithDianSimulator } = proxyActivities<DianDocumentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 12 },
});

/** Runs started before it read the record and each contact in activities of their own, and asked DIAN's side every time. */
export const LEAN_IMPORT_PATCH = 'lean-import';

/** Runs a step of DIAN's side; a failure there never fails the import. */
async function bestEffort<T>(step: () => Promise<T>, fallback: T): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    return fallback;
  }
}

/**
 * DIAN's side of imported documents (docs/dian.md), as runs started before the patch 'lean-import' ask it: the simulator learns them (companies in
 * environment simulator), then the events DIAN already has for each received invoice are read
 * (GetStatusEvent), so the order checks see events sent elsewhere.
 */
async function afterImportAtDian(fileId: number): Promise<void> {
  await bestEffort(() => registerImportedWithDianSimulator(fileId), 0);
  for (const documentId of await bestEffort(() => importedInvoicesForDianSync(fileId), [])) {
    await bestEffort(() => syncDianEvents(documentId), 0);
  }
}

/** What an upload's import workflow is started with: the file, and its size when the starter knows it. */
export type ImportFileInput = { fileId: number; sizeBytes?: number };

/**
 * One uploaded file, from bytes to documents: import it (idempotently: a CUFE is stored once,
 * a retried import creates nothing new), then tell the client — contact.created/updated for
 * the third parties it touched, and document.imported or document.import_failed with the
 * Uploaded file record. The import step returns those records and whether DIAN's side has
 * anything to do; when it has nothing, the step has published the events itself. A file up to
 * 512 KiB is imported by a local activity (decision 0019), so a small file of a company without
 * DIAN settings costs one workflow task and no activity task (docs/performance.md, per-unit
 * cost); a larger one runs the step as a heartbeating activity task. Cancelled, the upload ends
 * ERROR (code cancelled) with document.import_failed.
 */
export async function importFileWorkflowV3(input: ImportFileInput): Promise<{ status: 'DONE' | 'ERROR' }> {
  const importStep = importsInline(input.sizeBytes) ? importAndPublishInline : importAndPublishUploadedFile;
  return settlingOnCancellation({ kind: 'import', fileId: input.fileId }, () => importFile(input, importStep), 'always');
}

/**
 * The import type every upload ran from decision 0018 until importFileWorkflowV3: the same story
 * with the import always an activity task. Kept registered for the runs alive at a deploy and
 * the replay of their histories.
 */
export async function importFileWorkflowV2(input: { fileId: number }): Promise<{ status: 'DONE' | 'ERROR' }> {
  return settlingOnCancellation({ kind: 'import', fileId: input.fileId }, () => importFile(input, importUploadedFile), 'always');
}

/**
 * The first import type, which every upload ran until importFileWorkflowV2: kept registered for
 * the replay of its runs' histories (and DIAN import runs started before 'dian-import-batches',
 * which await it as a child). It asks its patches as it always did; importFileWorkflowV2 takes
 * their new branches without a marker (two history events and one Cloud action less per file).
 */
export async function importFileWorkflow(input: { fileId: number }): Promise<{ status: 'DONE' | 'ERROR' }> {
  return settlingOnCancellation({ kind: 'import', fileId: input.fileId }, () =>
    patched(LEAN_IMPORT_PATCH) ? importFile(input, importUploadedFile) : importFileAsBeforeLeanImport(input),
  );
}

/** An import step: the import activity, or the one that also publishes its events when nothing else follows. */
type ImportStep = (fileId: number) => Promise<ImportedFile & { published?: boolean }>;

/**
 * Whether the import step failed for good: an activity task's failure comes wrapped in an
 * ActivityFailure, an inline import's (a local activity's) as its own ApplicationFailure or
 * TimeoutFailure. Only the first was caught until 2026-11-25: an inline import whose retries
 * ended failed its workflow instead, leaving the upload PROCESSING with no event until the
 * 5-minute reconciliation started it again.
 */
function importStepFailed(error: unknown): boolean {
  if (isCancellation(error)) return false;
  return error instanceof ActivityFailure || error instanceof ApplicationFailure || error instanceof TimeoutFailure;
}

async function importFile(input: { fileId: number }, importStep: ImportStep): Promise<{ status: 'DONE' | 'ERROR' }> {
  let imported: ImportedFile & { published?: boolean };
  try {
    imported = await importStep(input.fileId);
  } catch (error) {
    if (!importStepFailed(error)) throw error;
    const record = await local.failUploadedFile(input.fileId, 'import_failed', 'The file could not be processed; it is kept and can be uploaded again.');
    imported = { status: 'ERROR', contactChanges: [], record, contacts: [], dian: { registerWithSimulator: false, invoicesToSync: [] } };
  }
  if (imported.dian.registerWithSimulator) await bestEffort(() => registerImportedWithDianSimulator(input.fileId), 0);
  if (imported.dian.invoicesToSync.length > 0) await bestEffort(() => syncDianEventsOf(imported.dian.invoicesToSync), 0);

  // Event ids derive from this workflow, the type and the record (publishEvents), whichever step publishes.
  if (!imported.published) await local.publishEvents(importEvents(imported));
  return { status: imported.status };
}

/** importFile as it ran before the patch 'lean-import', kept for the runs it started. */
async function importFileAsBeforeLeanImport(input: { fileId: number }): Promise<{ status: 'DONE' | 'ERROR' }> {
  let outcome: ImportOutcome;
  try {
    outcome = await importUploadedFile(input.fileId);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    await failUploadedFile(input.fileId, 'import_failed', 'The file could not be processed; it is kept and can be uploaded again.');
    outcome = { status: 'ERROR', contactChanges: [] };
  }
  if (outcome.status === 'DONE' && patched('dian-after-import')) await afterImportAtDian(input.fileId);

  const record = await uploadedFileRecord(input.fileId);
  const events: EventToPublish[] = [];
  for (const change of outcome.contactChanges) {
    events.push({ id: uuid4(), companyId: record.company_id, type: change.type, data: await contactRecord(change.contactId) });
  }
  const { company_id: companyId, ...data } = record;
  events.push({ id: uuid4(), companyId, type: outcome.status === 'DONE' ? 'document.imported' : 'document.import_failed', data });
  await publishEvents(events);
  return { status: outcome.status };
}

/** Run by a schedule: restarts imports of uploads stored while Temporal or the worker was unavailable. */
export async function resumeUnfinishedImportsWorkflow(): Promise<number> {
  return resumeUnfinishedImports();
}
