import { WorkflowNotFoundError } from '@temporalio/client';
import { workflowIdsFor } from '../workflows/messages';
import { deliveryWorkflowId } from './start-deliveries';
import { settle, type SettleDependencies } from './settle-stopped-work';

export type ReconcileOptions = {
  /** Only work older than this (default 300 s): younger work may still be starting its workflow. */
  olderThanSeconds?: number;
  /** Rows looked at per kind (default 500); run again for more. */
  limit?: number;
  /** Report what would be settled, change nothing. */
  dryRun?: boolean;
};

/** The ids of the records settled (or that would be, on a dry run), per kind. */
export type ReconcileReport = { deliveries: number[]; exports: number[]; dian_events: number[]; dian_imports: number[] };

/**
 * The repair after a `terminate` (which runs no code of the workflow): finds every company's
 * unfinished deliveries, exports, DIAN events and DIAN import runs whose workflow has closed
 * (terminated, timed out, or cancelled/completed without settling them, as runs before patch
 * settle-on-cancellation did) and settles them as `interrupted` (services/settle-stopped-work.ts).
 * Work whose workflow is running, or was never started (the resume-stranded-work schedule starts
 * that: services/resume-stranded-work.ts), is left alone. Uploads are not its
 * business: the resume-unfinished-imports schedule restarts their imports.
 */
export async function reconcileStoppedWork(deps: SettleDependencies, options: ReconcileOptions = {}): Promise<ReconcileReport> {
  const { olderThanSeconds = 300, limit = 500, dryRun = false } = options;
  const { unfinishedWork } = deps.repositories;
  const queue = deps.temporal.taskQueue;
  const ids = workflowIdsFor(queue);
  const report: ReconcileReport = { deliveries: [], exports: [], dian_events: [], dian_imports: [] };

  const settleIfClosed = async (workflowId: string, record: number[], id: number, settleIt: () => Promise<void>) => {
    if (!(await workflowClosed(deps, workflowId))) return;
    if (!dryRun) await settleIt();
    record.push(id);
  };

  for (const delivery of await unfinishedWork.deliveries(olderThanSeconds, limit)) {
    const workflowId = deliveryWorkflowId(queue, {
      deliveryId: delivery.id,
      endpointId: delivery.endpoint_id,
      eventId: delivery.event_id,
      resendOf: delivery.resend_of ?? undefined,
    });
    await settleIfClosed(workflowId, report.deliveries, delivery.id, () => settle.delivery(deps, delivery.id, 'interrupted'));
  }
  for (const id of await unfinishedWork.exports(olderThanSeconds, limit)) {
    const workflowId = ids.exportDocument(id);
    await settleIfClosed(workflowId, report.exports, id, () => settle.export(deps, workflowId, id, 'interrupted'));
  }
  for (const id of await unfinishedWork.dianEvents(olderThanSeconds, limit)) {
    const workflowId = ids.dianEvent(id);
    await settleIfClosed(workflowId, report.dian_events, id, () => settle.dianEvent(deps, workflowId, id, 'interrupted'));
  }
  for (const id of await unfinishedWork.dianImports(olderThanSeconds, limit)) {
    const workflowId = ids.dianImport(id);
    await settleIfClosed(workflowId, report.dian_imports, id, () => settle.dianImport(deps, workflowId, id, 'interrupted'));
  }
  return report;
}

/** The workflow's latest run has closed; false while it runs, and when Temporal never had it. */
async function workflowClosed(deps: SettleDependencies, workflowId: string): Promise<boolean> {
  try {
    const description = await deps.temporal.client.workflow.getHandle(workflowId).describe();
    return description.status.name !== 'RUNNING';
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return false;
    throw error;
  }
}
