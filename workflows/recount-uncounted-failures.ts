import { proxyActivities } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';

const { recountUncountedFailures } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5 },
});

/**
 * Run by a Temporal schedule: failed deliveries whose outcome never reached their endpoint's
 * entity (docs/webhooks.md) are reported to it again, or marked counted when that no longer matters.
 */
export async function recountUncountedFailuresWorkflow(): Promise<{ reported: number; cleared: number }> {
  return recountUncountedFailures();
}
