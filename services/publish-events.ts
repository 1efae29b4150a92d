import type { Repositories } from '../db/repositories';
import { isSubscribed } from '../domain/webhooks/event-types';
import type { TemporalTarget } from '../temporal/start-workflow';
import type { DeliveryInput, PublishEventInput } from '../workflows/messages';
import { startDeliveryWorkflows } from './start-deliveries';

/** Persists the event and one pending delivery per target endpoint (idempotent for a repeated call). */
export async function recordEventDeliveries(repositories: Repositories, input: PublishEventInput): Promise<DeliveryInput[]> {
  const event = await repositories.events.record(input.event);
  const endpoints = await repositories.webhookEndpoints.enabledForCompany(event.company_id);
  const targets = endpoints.filter((endpoint) =>
    input.onlyEndpointId !== undefined ? endpoint.id === input.onlyEndpointId : isSubscribed(endpoint.events, event.type),
  );
  const deliveries = await repositories.webhookDeliveries.createForEvent(event, targets.map((endpoint) => endpoint.id));
  return deliveries.map((delivery) => ({
    deliveryId: delivery.id,
    endpointId: delivery.endpoint_id,
    eventId: event.id,
    companyId: event.company_id,
    eventType: event.type,
  }));
}

/**
 * Publishes an event without a workflow of its own: records it with its pending deliveries,
 * then starts their delivery workflows. Safe to repeat (a retried activity): the event and its
 * deliveries are keyed by the event id, and each delivery workflow's id by endpoint and event,
 * so a repeat records nothing twice, starts nothing twice and starts whatever an interrupted
 * call left unstarted. The caller must repeat it until it succeeds (an activity's retry policy).
 */
export async function publishEvent(deps: { repositories: Repositories; temporal: TemporalTarget }, input: PublishEventInput): Promise<DeliveryInput[]> {
  const deliveries = await recordEventDeliveries(deps.repositories, input);
  await startDeliveryWorkflows(deps.temporal, deliveries);
  return deliveries;
}
