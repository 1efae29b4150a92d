import { Context } from '@temporalio/activity';
import { settle, type SettleDependencies } from '../services/settle-stopped-work';

/** What a cancelled workflow was about: the record it settles (services/settle-stopped-work.ts). */
export type CancelledWork =
  | { kind: 'delivery'; deliveryId: number }
  | { kind: 'import'; fileId: number }
  | { kind: 'export'; exportId: number }
  | { kind: 'dianEvent'; eventId: number }
  | { kind: 'dianImport'; importId: number };

export function createSteeringActivities(deps: SettleDependencies) {
  return {
    /**
     * Run (non-cancellably) by a workflow an operator cancelled: its record ends failed/ERROR with
     * code `cancelled` and the outcome event is published under the workflow's own event id.
     */
    async settleCancelledWork(work: CancelledWork): Promise<void> {
      const workflowId = Context.current().info.workflowExecution?.workflowId;
      if (!workflowId) throw new Error('settleCancelledWork is an activity of a workflow');
      switch (work.kind) {
        case 'delivery':
          return settle.delivery(deps, work.deliveryId, 'cancelled');
        case 'import':
          return settle.import(deps, workflowId, work.fileId, 'cancelled');
        case 'export':
          return settle.export(deps, workflowId, work.exportId, 'cancelled');
        case 'dianEvent':
          return settle.dianEvent(deps, workflowId, work.eventId, 'cancelled');
        case 'dianImport':
          return settle.dianImport(deps, workflowId, work.importId, 'cancelled');
      }
    },
  };
}
