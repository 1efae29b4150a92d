import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type { EventType } from '../domain/webhooks/event-types';
import { workflowIdsFor } from '../workflows/messages';

/**
 * emitEvent for the API: the event is published by a durable workflow (record + one delivery
 * workflow per endpoint), so nothing is lost if this process dies after answering.
 */
export async function emitEvent(
  temporal: { client: Client; taskQueue: string },
  event: { companyId: number; type: EventType; data: unknown },
  onlyEndpointId?: number,
): Promise<{ id: string }> {
  const id = randomUUID();
  await temporal.client.workflow.start('publishEventWorkflow', {
    workflowId: workflowIdsFor(temporal.taskQueue).publishEvent(id),
    taskQueue: temporal.taskQueue,
    args: [{ event: { id, ...event }, onlyEndpointId }],
  });
  return { id };
}
