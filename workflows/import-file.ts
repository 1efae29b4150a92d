import { ActivityFailure, patched, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { createDianDocumentActivities } from '../activities/dian-documents';
import type { createIngestionActivities, EventToPublish } from '../activities/ingestion';
import { settlingOnCancellation } from './settle-on-cancellation';

type IngestionActivities = ReturnType<typeof createIngestionActivities>;
type DianDocumentActivities = ReturnType<typeof createDianDocumentActivities>;

const { importUploadedFile } = proxyActivities<IngestionActivities>({
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '15 seconds',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 6 },
});
const { failUploadedFile, uploadedFileRecord, contactRecord, publishEvents, resumeUnfinishedImports } = proxyActivities<IngestionActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

const { registerImportedWithDianSimulator, importedInvoicesForDianSync, syncDianEvents } = proxyActivities<DianDocumentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

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
 * DIAN's side of imported documents (docs/dian.md): the simulator learns them (companies in
 * environment simulator), then the events DIAN already has for each received invoice are read
 * (GetStatusEvent), so the order checks see events sent elsewhere.
 */
async function afterImportAtDian(fileId: number): Promise<void> {
  await bestEffort(() => registerImportedWithDianSimulator(fileId), 0);
  for (const documentId of await bestEffort(() => importedInvoicesForDianSync(fileId), [])) {
    await bestEffort(() => syncDianEvents(documentId), 0);
  }
}

/**
 * One uploaded file, from bytes to documents: import it (idempotently: a CUFE is stored once,
 * a retried import creates nothing new), then tell the client — contact.created/updated for
 * the third parties it touched, and document.imported or document.import_failed with the
 * Uploaded file record. Cancelled, the upload ends ERROR (code cancelled) with document.import_failed.
 */
export async function importFileWorkflow(input: { fileId: number }): Promise<{ status: 'DONE' | 'ERROR' }> {
  return settlingOnCancellation({ kind: 'import', fileId: input.fileId }, () => importFile(input));
}

async function importFile(input: { fileId: number }): Promise<{ status: 'DONE' | 'ERROR' }> {
  let outcome: Awaited<ReturnType<IngestionActivities['importUploadedFile']>>;
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
