import type { Repositories } from '../db/repositories';
import { publishedEventId } from '../domain/webhooks/event-ids';
import { isSubscribed, type EventType } from '../domain/webhooks/event-types';
import type { TemporalTarget } from '../temporal/start-workflow';
import type { DeliveryInput, PublishEventInput } from '../workflows/messages';
import { startDeliveryWorkflows } from './start-deliveries';

/**
 * Persists the event and one pending delivery per target endpoint (idempotent for a repeated
 * call). A new event for its subscribers takes one statement; a repeat, or an event for one
 * endpoint only, reads what is there and adds what is missing.
 */
export async function recordEventDeliveries(repositories: Repositories, input: PublishEventInput): Promise<DeliveryInput[]> {
  const first = input.onlyEndpointId === undefined ? await repositories.events.recordWithDeliveries(input.event) : undefined;
  const { event, deliveries } = first ?? (await recordStepByStep(repositories, input));
  return deliveries.map((delivery) => ({
    deliveryId: delivery.id,
    endpointId: delivery.endpoint_id,
    eventId: event.id,
    companyId: event.company_id,
    eventType: event.type,
  }));
}

async function recordStepByStep(repositories: Repositories, input: PublishEventInput) {
  const event = await repositories.events.record(input.event);
  const endpoints = await repositories.webhookEndpoints.enabledForCompany(event.company_id);
  const targets = endpoints.filter((endpoint) =>
    input.onlyEndpointId !== undefined ? endpoint.id === input.onlyEndpointId : isSubscribed(endpoint.events, event.type),
  );
  return { event, deliveries: await repositories.webhookDeliveries.createForEvent(event, targets.map((endpoint) => endpoint.id)) };
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

/** An event a workflow publishes about a record (data: the record, whose `id` names it when it has one). */
export type WorkflowEvent = { companyId: number; type: EventType; data: unknown };

/**
 * Publishes the events of one workflow (its import, export, DIAN event …) under ids derived from
 * the workflow id, the type and the record (domain/webhooks/event-ids.ts): a retried activity, a
 * reset or re-run workflow, or an operator's settling of a stopped one publishes each event once.
 */
export async function publishWorkflowEvents(
  deps: { repositories: Repositories; temporal: TemporalTarget },
  publisherWorkflowId: string,
  events: WorkflowEvent[],
): Promise<void> {
  for (const event of events) {
    const id = publishedEventId(publisherWorkflowId, event.type, (event.data as { id?: unknown } | null)?.id);
    await publishEvent(deps, { event: { id, companyId: event.companyId, type: event.type, data: event.data } });
  }
}
