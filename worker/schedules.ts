import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import { resumeUnfinishedImportsWorkflow } from '../workflows/import-file';
import { scheduleIds } from '../workflows/messages';
import { purgeWebhookHistoryWorkflow } from '../workflows/purge-webhook-history';
import { purgeUnimportableMailWorkflow } from '../workflows/purge-unimportable-mail';
import { purgeIdempotentRequestsWorkflow } from '../workflows/purge-idempotent-requests';
import { recountUncountedFailuresWorkflow } from '../workflows/recount-uncounted-failures';
import { repairUnstartedDeliveriesWorkflow } from '../workflows/repair-unstarted-deliveries';
import { resumeStrandedWorkWorkflow } from '../workflows/resume-stranded-work';

const RECURRING_JOBS = [
  { scheduleId: scheduleIds.purgeWebhookHistory, workflow: purgeWebhookHistoryWorkflow, every: '1 hour' },
  { scheduleId: scheduleIds.resumeUnfinishedImports, workflow: resumeUnfinishedImportsWorkflow, every: '5 minutes' },
  { scheduleId: scheduleIds.purgeUnimportableMail, workflow: purgeUnimportableMailWorkflow, every: '1 hour' },
  { scheduleId: scheduleIds.repairUnstartedDeliveries, workflow: repairUnstartedDeliveriesWorkflow, every: '1 minute' },
  { scheduleId: scheduleIds.recountUncountedFailures, workflow: recountUncountedFailuresWorkflow, every: '10 minutes' },
  { scheduleId: scheduleIds.purgeIdempotentRequests, workflow: purgeIdempotentRequestsWorkflow, every: '1 hour' },
  { scheduleId: scheduleIds.resumeStrandedWork, workflow: resumeStrandedWorkWorkflow, every: '1 minute' },
] as const;

/** Recurring jobs, created once per namespace and task queue; an existing schedule is left as it is. */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<void> {
  for (const job of RECURRING_JOBS) {
    try {
      await client.schedule.create({
        scheduleId: job.scheduleId(taskQueue),
        spec: { intervals: [{ every: job.every }] },
        action: { type: 'startWorkflow', workflowType: job.workflow, taskQueue, args: [] },
        policies: { overlap: 'SKIP' },
      });
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
    }
  }
}
