import { ActivityFailure, isCancellation, proxyActivities, sleep } from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';
import { delayBeforeAttempt, MAX_ATTEMPTS } from '../domain/webhooks/retry-schedule';
import type { DeliveryInput } from './messages';

type WebhookActivities = ReturnType<typeof createWebhookActivities>;

// The workflow owns the retry schedule: an attempt is never retried by Temporal.
const { deliverAttempt } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '25 seconds',
  retry: { maximumAttempts: 1 },
});
const { recordLostAttempt, reportAttemptOutcome } = proxyActivities<WebhookActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One event to one endpoint: attempts at 0, +1 min, +5 min, +30 min and +2 h; delivered on
 * the first 2xx, failed after the fifth failure. Every outcome is reported to the endpoint's
 * entity workflow, which counts consecutive failures. Cancelled when the endpoint is disabled.
 */
export async function webhookDeliveryWorkflow(input: DeliveryInput): Promise<'delivered' | 'failed'> {
  try {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const wait = delayBeforeAttempt(attempt) ?? 0;
      if (wait > 0) await sleep(wait);
      const followingDelay = delayBeforeAttempt(attempt + 1);
      const request = {
        ...input,
        attempt,
        nextAttemptAt: followingDelay === undefined ? null : new Date(Date.now() + followingDelay).toISOString(),
      };

      let succeeded: boolean;
      try {
        const result = await deliverAttempt(request);
        if (result.kind === 'endpoint_unavailable') return 'failed';
        succeeded = result.kind === 'delivered';
      } catch (error) {
        if (!(error instanceof ActivityFailure) || isCancellation(error)) throw error;
        await recordLostAttempt({ ...request, error: `attempt interrupted: ${error.cause?.message ?? error.message}` });
        succeeded = false;
      }

      await reportAttemptOutcome(input.endpointId, { deliveryId: input.deliveryId, attempt, succeeded });
      if (succeeded) return 'delivered';
    }
    return 'failed';
  } catch (error) {
    if (isCancellation(error)) return 'failed'; // the endpoint was disabled or deleted; its row is already failed
    throw error;
  }
}
