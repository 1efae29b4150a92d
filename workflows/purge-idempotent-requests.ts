import { proxyActivities } from '@temporalio/workflow';
import type { createIdempotentRequestActivities } from '../activities/idempotent-requests';

const { purgeExpiredIdempotentRequests } = proxyActivities<ReturnType<typeof createIdempotentRequestActivities>>({
  startToCloseTimeout: '10 minutes',
  retry: { maximumAttempts: 5 },
});

/** Run by a Temporal schedule: answers kept for Idempotency-Key retries go after 24 hours. */
export async function purgeIdempotentRequestsWorkflow(): Promise<{ answers: number }> {
  return purgeExpiredIdempotentRequests();
}
