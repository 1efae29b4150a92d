import { randomUUID } from 'node:crypto';
import type { EventType } from '../domain/webhooks/event-types';
import { startWorkflow, type TemporalTarget } from '../temporal/start-workflow';
import { workflowIdsFor } from '../workflows/messages';
import { publishEventWorkflow } from '../workflows/publish-event';

/**
 * emitEvent for the API: the event is published by a durable workflow (record + one delivery
 * workflow per endpoint), so nothing is lost if this process dies after answering.
 */
export async function emitEvent(
  temporal: TemporalTarget,
  event: { companyId: number; type: EventType; data: unknown },
  onlyEndpointId?: number,
): Promise<{ id: string }> {
  const id = randomUUID();
  await startWorkflow(temporal, publishEventWorkflow, {
    workflowId: workflowIdsFor(temporal.taskQueue).publishEvent(id),
    subject: { companyId: event.companyId, eventType: event.type, endpointId: onlyEndpointId },
    args: [{ event: { id, ...event }, onlyEndpointId }],
  });
  return { id };
}
