import { startWorkflow, type TemporalTarget } from '../temporal/start-workflow';
import { workflowIdsFor, type DeliveryInput } from '../workflows/messages';
import { webhookDeliveryWorkflowV3 } from '../workflows/webhook-delivery';

/** An original delivery's workflow id names its endpoint and event; a resend's adds its own delivery id. */
export function deliveryWorkflowId(taskQueue: string, delivery: DeliveryInput): string {
  const ids = workflowIdsFor(taskQueue);
  return delivery.resendOf === undefined ? ids.delivery(delivery.endpointId, delivery.eventId) : ids.delivery(delivery.endpointId, delivery.eventId, delivery.deliveryId);
}

/**
 * Starts one delivery workflow per delivery. Workflow ids are never reused, so a retried call
 * starts nothing twice (not even a delivery whose workflow has already finished). Answers, per
 * delivery, whether this call started it (false: its workflow already existed).
 */
export async function startDeliveryWorkflows(temporal: TemporalTarget, deliveries: DeliveryInput[]): Promise<boolean[]> {
  return Promise.all(
    deliveries.map((delivery) =>
      startWorkflow(temporal, webhookDeliveryWorkflowV3, {
        workflowId: deliveryWorkflowId(temporal.taskQueue, delivery),
        workflowIdReusePolicy: 'REJECT_DUPLICATE',
        subject: { companyId: delivery.companyId, endpointId: delivery.endpointId, eventType: delivery.eventType },
        args: [delivery],
      }),
    ),
  );
}
