import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import { workflowIds } from '../workflows/messages';

/** Recurring jobs, created once per namespace and task queue; an existing schedule is left as it is. */
export async function ensureSchedules(client: Client, taskQueue: string): Promise<void> {
  try {
    await client.schedule.create({
      scheduleId: `${workflowIds.purgeSchedule}-${taskQueue}`,
      spec: { intervals: [{ every: '1 hour' }] },
      action: { type: 'startWorkflow', workflowType: 'purgeWebhookHistoryWorkflow', taskQueue, args: [] },
      policies: { overlap: 'SKIP' },
    });
  } catch (error) {
    if (!(error instanceof ScheduleAlreadyRunning)) throw error;
  }
}
