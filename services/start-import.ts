import { startWorkflow, type TemporalTarget } from '../temporal/start-workflow';
import { importFileWorkflowV2 } from '../workflows/import-file';
import { workflowIdsFor } from '../workflows/messages';

/** Starts the import workflow of a stored upload; an import already running is left alone. */
export async function startImport(deps: { temporal: TemporalTarget }, fileId: number, companyId?: number): Promise<void> {
  await startWorkflow(deps.temporal, importFileWorkflowV2, {
    workflowId: workflowIdsFor(deps.temporal.taskQueue).importFile(fileId),
    subject: { companyId, uploadedFileId: fileId },
    args: [{ fileId }],
  });
}
