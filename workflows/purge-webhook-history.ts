import { proxyActivities } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';

const { purgeWebhookHistory } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5 },
});

/** Run by a Temporal schedule: deliveries older than 30 days (and their orphaned events) go. */
export async function purgeWebhookHistoryWorkflow(): Promise<{ deliveries: number; events: number }> {
  return purgeWebhookHistory();
}
