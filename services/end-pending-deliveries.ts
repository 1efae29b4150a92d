import { WorkflowNotFoundError } from '@temporalio/client';
import type { Repositories } from '../db/repositories';
import type { TemporalTarget } from '../temporal/start-workflow';
import { deliveryWorkflowId } from './start-deliveries';

/**
 * Ends every pending delivery of an endpoint (deactivated or deleted): their rows become failed
 * and their workflows are cancelled, so no further attempt is made.
 */
export async function endPendingDeliveries(deps: { repositories: Repositories; temporal: TemporalTarget }, endpointId: number, reason: string) {
  const ended = await deps.repositories.webhookDeliveries.failAllPending(endpointId, reason);
  await Promise.all(
    ended.map(async (delivery) => {
      const workflowId = deliveryWorkflowId(deps.temporal.taskQueue, {
        deliveryId: delivery.id,
        endpointId,
        eventId: delivery.event_id,
        resendOf: delivery.resend_of ?? undefined,
      });
      try {
        await deps.temporal.client.workflow.getHandle(workflowId).cancel();
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError)) throw error;
      }
    }),
  );
  return ended.length;
}
