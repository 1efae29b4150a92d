import { ActivityFailure, patched, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { createDianDocumentActivities } from '../activities/dian-documents';
import type { createIngestionActivities, EventToPublish } from '../activities/ingestion';

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

const { registerImportedWithDianSimulator } = proxyActivities<DianDocumentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 5 },
});

/** DIAN's side of imported documents; never fails the import (docs/dian.md). */
async function afterImportAtDian(fileId: number): Promise<void> {
  try {
    await registerImportedWithDianSimulator(fileId);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
  }
}

/**
 * One uploaded file, from bytes to documents: import it (idempotently: a CUFE is stored once,
 * a retried import creates nothing new), then tell the client — contact.created/updated for
 * the third parties it touched, and document.imported or document.import_failed with the
 * Uploaded file record.
 */
export async function importFileWorkflow(input: { fileId: number }): Promise<{ status: 'DONE' | 'ERROR' }> {
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
