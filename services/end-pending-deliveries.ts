import { WorkflowNotFoundError } from '@temporalio/client';
import type { Repositories } from '../db/repositories';
import type { TemporalTarget } from '../temporal/start-workflow';
import { workflowIdsFor } from '../workflows/messages';

/**
 * Ends every pending delivery of an endpoint (deactivated or deleted): their rows become failed
 * and their workflows are cancelled, so no further attempt is made.
 */
export async function endPendingDeliveries(deps: { repositories: Repositories; temporal: TemporalTarget }, endpointId: number, reason: string) {
  const ended = await deps.repositories.webhookDeliveries.failAllPending(endpointId, reason);
  await Promise.all(
    ended.map(async (delivery) => {
      try {
        await deps.temporal.client.workflow.getHandle(workflowIdsFor(deps.temporal.taskQueue).delivery(endpointId, delivery.event_id)).cancel();
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    }),
  );
  return ended.length;
}
