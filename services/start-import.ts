import { startWorkflow, type TemporalTarget } from '../temporal/start-workflow';
import { importFileWorkflowV3 } from '../workflows/import-file';
import { workflowIdsFor } from '../workflows/messages';

/** The stored upload an import is started for; its size decides whether it imports inline (domain/ingestion/import-lane.ts). */
export type FileToImport = { fileId: number; companyId?: number; sizeBytes: number };

/** Starts the import workflow of a stored upload; an import already running is left alone. */
export async function startImport(deps: { temporal: TemporalTarget }, file: FileToImport): Promise<void> {
  await startWorkflow(deps.temporal, importFileWorkflowV3, {
    workflowId: workflowIdsFor(deps.temporal.taskQueue).importFile(file.fileId),
    subject: { companyId: file.companyId, uploadedFileId: file.fileId },
    args: [{ fileId: file.fileId, sizeBytes: file.sizeBytes }],
  });
}
