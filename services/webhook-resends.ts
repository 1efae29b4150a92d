import type { Repositories } from '../db/repositories';
import type { ResendRef } from '../db/repositories/webhook-deliveries';
import type { TemporalTarget } from '../temporal/start-workflow';
import { startDeliveryWorkflows } from './start-deliveries';

const START_BATCH = 50;

/**
 * Resends failed deliveries of an endpoint (Svix/Stripe style): each resend is a new delivery of
 * the same event — same event id and webhook-id, a fresh webhook-timestamp and the current
 * secret(s) at every attempt, the normal five-attempt schedule, its outcome counted by the
 * endpoint — and the failed delivery stays failed, linked to it. Each failed delivery is resent
 * at most once however often this is called; the pending resends of the chosen deliveries are
 * (re)started, so a call interrupted between the insert and the start is finished by repeating it.
 */
export async function resendFailedDeliveries(
  deps: { repositories: Repositories; temporal: TemporalTarget },
  endpoint: { id: number; company_id: number },
  which: { deliveryId: number } | { since: Date },
): Promise<ResendRef[]> {
  const resends = await deps.repositories.webhookDeliveries.resendFailed(endpoint.company_id, endpoint.id, which);
  const inputs = resends.map((resend) => ({ deliveryId: resend.id, endpointId: resend.endpoint_id, eventId: resend.event_id, resendOf: resend.resend_of }));
  // A recover can cover a month of failures: start them a bounded batch at a time.
  for (let start = 0; start < inputs.length; start += START_BATCH) {
    await startDeliveryWorkflows(deps.temporal, inputs.slice(start, start + START_BATCH));
  }
  return resends;
}
