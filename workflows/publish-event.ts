import { proxyActivities } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';
import type { PublishEventInput } from './messages';

const { recordEvent, startDeliveries } = proxyActivities<ReturnType<typeof createWebhookActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});

/**
 * An event happened: record it, then start one durable delivery workflow per subscribed
 * endpoint. Delivery workflow ids derive from endpoint and event, so a retried step never
 * delivers twice. Deliveries are independent workflows (not children): they outlive this one,
 * and their results need not travel back to it.
 */
export async function publishEventWorkflow(input: PublishEventInput): Promise<{ deliveries: number }> {
  const deliveries = await recordEvent(input);
  if (deliveries.length > 0) await startDeliveries(deliveries);
  return { deliveries: deliveries.length };
}
