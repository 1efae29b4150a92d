import type { Repositories } from '../db/repositories';
import type { TemporalTarget } from '../temporal/start-workflow';
import { publishWorkflowEvents } from './publish-events';
import { presentExport } from './presenters/export';
import { presentDianImport } from './presenters/dian-import';
import { loadDianEventRecord } from './presenters/dian-event';
import { loadUploadedFileRecord } from './presenters/uploaded-file';

export type SettleDependencies = { repositories: Repositories; temporal: TemporalTarget };

/**
 * How the work stopped before its outcome: `cancelled` by an operator (the workflow settles its
 * record itself), or `interrupted`: its workflow ended without settling it (terminated, timed out;
 * `invoicing operations reconcile` settles it). Also the error code clients see.
 */
export type Stop = 'cancelled' | 'interrupted';

const MESSAGES: Record<Stop, string> = {
  cancelled: 'Cancelled by an operator before it finished; it can be requested again.',
  interrupted: 'Stopped before it finished (its workflow ended without an outcome); it can be requested again.',
};

/**
 * Settling gives a record whose workflow stopped early its final state, as clients know them:
 * unfinished work ends failed with code `cancelled` or `interrupted`, and the outcome event of
 * the record's final state is published (under the workflow's own event id, so an event its
 * workflow already published is not published twice). A record already final keeps its outcome.
 */
export const settle = {
  /** A delivery ends failed (the contract's only end besides delivered); no event. */
  async delivery(deps: SettleDependencies, deliveryId: number, stop: Stop): Promise<void> {
    const reason = stop === 'cancelled' ? 'cancelled by an operator; no further attempt' : 'its workflow ended without an outcome; no further attempt';
    await deps.repositories.webhookDeliveries.failIfPending(deliveryId, reason);
  },

  /** An upload ends ERROR; document.imported or document.import_failed. */
  async import(deps: SettleDependencies, workflowId: string, fileId: number, stop: Stop): Promise<void> {
    await deps.repositories.uploadedFiles.failIfUnfinished(fileId, stop, MESSAGES[stop]);
    const { company_id: companyId, ...record } = await loadUploadedFileRecord(deps.repositories, fileId);
    const type = record.status === 'DONE' ? 'document.imported' : 'document.import_failed';
    await publishWorkflowEvents(deps, workflowId, [{ companyId, type, data: record }]);
  },

  /** An export ends failed; export.succeeded or export.failed. */
  async export(deps: SettleDependencies, workflowId: string, exportId: number, stop: Stop): Promise<void> {
    const row = await deps.repositories.exports.markFailed(exportId, stop, MESSAGES[stop]);
    const type = row.status === 'succeeded' ? 'export.succeeded' : 'export.failed';
    await publishWorkflowEvents(deps, workflowId, [{ companyId: row.company_id, type, data: presentExport(row) }]);
  },

  /** A DIAN event ends failed; dian_event.completed or dian_event.failed. */
  async dianEvent(deps: SettleDependencies, workflowId: string, eventId: number, stop: Stop): Promise<void> {
    await deps.repositories.dianEvents.failIfPending(eventId, stop, MESSAGES[stop]);
    const { company_id: companyId, ...record } = await loadDianEventRecord(deps.repositories, eventId);
    const type = record.succeeded ? 'dian_event.completed' : 'dian_event.failed';
    await publishWorkflowEvents(deps, workflowId, [{ companyId, type, data: record }]);
  },

  /** A DIAN import run ends ERROR; dian_import.completed or dian_import.failed. Its documents' imports settle themselves. */
  async dianImport(deps: SettleDependencies, workflowId: string, importId: number, stop: Stop): Promise<void> {
    await deps.repositories.dianImports.failIfUnfinished(importId, stop, MESSAGES[stop]);
    const row = await deps.repositories.dianImports.findById(importId);
    if (!row) throw new Error(`DIAN import ${importId} does not exist`);
    const type = row.status === 'DONE' ? 'dian_import.completed' : 'dian_import.failed';
    await publishWorkflowEvents(deps, workflowId, [{ companyId: row.company_id, type, data: presentDianImport(row) }]);
  },
};
