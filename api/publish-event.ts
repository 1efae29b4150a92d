import { randomUUID } from 'node:crypto';
import type { Repositories } from '../db/repositories';
import type { EventType } from '../domain/webhooks/event-types';
import { publishEvent } from '../services/publish-events';
import type { TemporalTarget } from '../temporal/start-workflow';

/**
 * emitEvent for the API: records the event and its pending deliveries, and starts one durable
 * delivery workflow per endpoint, before the caller answers (no publish workflow of its own,
 * docs/decisions/0011-lean-webhook-pipeline.md). A failure fails the request; once this
 * returns, every delivery is in the hands of its workflow.
 */
export async function emitEvent(
  deps: { repositories: Repositories; temporal: TemporalTarget },
  event: { companyId: number; type: EventType; data: unknown },
  onlyEndpointId?: number,
): Promise<{ id: string }> {
  const id = randomUUID();
  await publishEvent(deps, { event: { id, ...event }, onlyEndpointId });
  return { id };
}
