import { Context } from '@temporalio/activity';
import { resumeStrandedWork, type ResumeReport } from '../services/resume-stranded-work';
import { settle, type SettleDependencies } from '../services/settle-stopped-work';

/**
 * How old a pending export, DIAN event or DIAN import run must be before the resume starts its
 * workflow: the API starts it right after recording it, and a start waiting on a frozen Temporal
 * may take a while. Both start it with the same workflow id and REJECT_DUPLICATE, and the API never
 * undoes a record whose start failed, so whichever comes second starts nothing.
 */
export const RESUME_STRANDED_AFTER_SECONDS = 300;

/** What a cancelled workflow was about: the record it settles (services/settle-stopped-work.ts). */
export type CancelledWork =
  | { kind: 'delivery'; deliveryId: number }
  | { kind: 'import'; fileId: number }
  | { kind: 'export'; exportId: number }
  | { kind: 'dianEvent'; eventId: number }
  | { kind: 'dianImport'; importId: number };

export function createSteeringActivities(deps: SettleDependencies) {
  return {
    /** The resume-stranded-work schedule's step (services/resume-stranded-work.ts). */
    async resumeStrandedWork(): Promise<ResumeReport> {
      return resumeStrandedWork(deps, { olderThanSeconds: RESUME_STRANDED_AFTER_SECONDS });
    },

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
