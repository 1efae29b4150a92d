import { proxyActivities } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';

const { startUnstartedDeliveries } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5 },
});

/** Run by a Temporal schedule: deliveries recorded but never started (an API process died in between) get their workflow. */
export async function repairUnstartedDeliveriesWorkflow(): Promise<{ started: number; alreadyStarted: number }> {
  return startUnstartedDeliveries();
}
