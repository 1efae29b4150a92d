import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type { Repositories } from '../db/repositories';
import type { EventType } from '../domain/webhooks/event-types';
import { recordEventDeliveries } from '../services/publish-events';
import { startDeliveryWorkflows } from '../services/start-deliveries';
import type { TemporalTarget } from '../temporal/start-workflow';

/**
 * emitEvent for the API: records the event and its pending deliveries, then starts one durable
 * delivery workflow per endpoint (no publish workflow of its own,
 * docs/decisions/0011-lean-webhook-pipeline.md). A failure to record fails the request. Once
 * recorded, the event is accepted: when its workflows cannot be started (Temporal unreachable)
 * the deliveries stay pending and the repair schedule starts them
 * (services/repair-unstarted-deliveries.ts), so the answer is the same 202 with the event id,
 * and `deliveriesStarted` says whether they are already under way; `deliveryIds` names the
 * deliveries recorded (the one to `onlyEndpointId`, when given and enabled).
 */
export async function emitEvent(
  deps: { repositories: Repositories; temporal: TemporalTarget; logger?: Pick<Logger, 'warn'> },
  event: { companyId: number; type: EventType; data: unknown },
  onlyEndpointId?: number,
): Promise<{ id: string; deliveriesStarted: boolean; deliveryIds: number[] }> {
  const id = randomUUID();
  const deliveries = await recordEventDeliveries(deps.repositories, { event: { id, ...event }, onlyEndpointId });
  const deliveryIds = deliveries.map((delivery) => delivery.deliveryId);
  try {
    await startDeliveryWorkflows(deps.temporal, deliveries);
    return { id, deliveriesStarted: true, deliveryIds };
  } catch (error) {
    deps.logger?.warn({ err: error, eventId: id, deliveries: deliveries.length }, 'event recorded; its deliveries will be started by the repair schedule');
    return { id, deliveriesStarted: false, deliveryIds };
  }
}
