import { startWorkflow, type TemporalTarget } from '../temporal/start-workflow';
import { importFileWorkflow } from '../workflows/import-file';
import { workflowIdsFor } from '../workflows/messages';

/** Starts the import workflow of a stored upload; an import already running is left alone. */
export async function startImport(deps: { temporal: TemporalTarget }, fileId: number, companyId?: number): Promise<void> {
  await startWorkflow(deps.temporal, importFileWorkflow, {
    workflowId: workflowIdsFor(deps.temporal.taskQueue).importFile(fileId),
    subject: { companyId, uploadedFileId: fileId },
    args: [{ fileId }],
  });
}
