import type { Repositories } from '../db/repositories';
import type { SecretBox } from '../domain/secret-box';
import type { AttemptOutcome } from '../domain/webhooks/endpoint-health';
import { signingSecrets } from '../domain/webhooks/endpoint-secrets';
import { ATTEMPT_TIMEOUT_MS, MAX_ATTEMPTS } from '../domain/webhooks/retry-schedule';
import { webhookHeaders } from '../domain/webhooks/signature';
import { attemptOutcomeSignal, workflowIdsFor, type DeliveryInput, type PublishEventInput } from '../workflows/messages';
import { signalWithStartWorkflow, type TemporalTarget } from '../temporal/start-workflow';
import { webhookEndpointWorkflow } from '../workflows/webhook-endpoint';
import { endPendingDeliveries } from '../services/end-pending-deliveries';
import { startDeliveryWorkflows } from '../services/start-deliveries';
import { recordEventDeliveries } from '../services/publish-events';
import { repairUnstartedDeliveries, type RepairReport } from '../services/repair-unstarted-deliveries';
import { postWebhook } from './webhook-http';

export type WebhookActivityDependencies = {
  repositories: Repositories;
  secretBox: SecretBox;
  temporal: TemporalTarget;
  webhooks: { allowPrivateTargets: boolean; repairAfterSeconds: number };
};

export type AttemptResult =
  | {
      kind: 'delivered' | 'failed';
      statusCode: number | null;
      error: string | null;
      /** Delivered while the endpoint's counter is 0 with no failure uncounted: no outcome to report (absent in older runs). */
      counterUnaffected?: boolean;
    }
  | { kind: 'endpoint_unavailable'; reason: string };

export type AttemptRequest = DeliveryInput & {
  attempt: number;
  /** The wait after this attempt ends before the next one; null after the last. */
  retryDelayMs?: number | null;
  /** Older workflow runs: the next attempt estimated before this one started (used only without retryDelayMs). */
  nextAttemptAt: string | null;
};

/** When the next attempt is due, measured from the end of this one, as the workflow's schedule is. */
function nextAttemptDue(request: AttemptRequest, endedAt: Date): Date | null {
  if (request.retryDelayMs === undefined) return request.nextAttemptAt ? new Date(request.nextAttemptAt) : null;
  return request.retryDelayMs === null ? null : new Date(endedAt.getTime() + request.retryDelayMs);
}

export function createWebhookActivities(deps: WebhookActivityDependencies) {
  const { repositories } = deps;

  return {
    /** publishEventWorkflow's first step (runs started before events were published by activities). */
    async recordEvent(input: PublishEventInput): Promise<DeliveryInput[]> {
      return recordEventDeliveries(repositories, input);
    },

    /** Starts one delivery workflow per delivery (idempotent, see startDeliveryWorkflows). */
    async startDeliveries(deliveries: DeliveryInput[]): Promise<void> {
      await startDeliveryWorkflows(deps.temporal, deliveries);
    },

    /** One delivery attempt: check the endpoint, sign the stored body, POST, record the outcome. */
    async deliverAttempt(request: AttemptRequest): Promise<AttemptResult> {
      const { endpoint, deliveryStatus, payload: body } = await repositories.webhookDeliveries.attemptContext(request.deliveryId, request.endpointId, request.eventId);
      const unavailable = !endpoint || endpoint.deleted_at ? 'endpoint deleted' : !endpoint.enabled ? 'endpoint disabled' : null;
      if (unavailable || !endpoint) {
        const reason = `${unavailable}; not sent`;
        await repositories.webhookDeliveries.failIfPending(request.deliveryId, reason);
        return { kind: 'endpoint_unavailable', reason };
      }
      if (deliveryStatus !== 'pending') {
        return { kind: 'endpoint_unavailable', reason: `delivery is ${deliveryStatus ?? 'gone'}` };
      }
      if (!body) throw new Error(`event ${request.eventId} has no payload`);

      const startedAt = new Date();
      const headers = webhookHeaders(
        signingSecrets(deps.secretBox, endpoint.secrets, startedAt),
        request.eventId,
        Math.floor(startedAt.getTime() / 1000),
        body,
      );
      const outcome = await postWebhook(endpoint.url, headers, body, {
        timeoutMs: ATTEMPT_TIMEOUT_MS,
        allowPrivateTargets: deps.webhooks.allowPrivateTargets,
      });
      const recorded = await repositories.webhookDeliveries.recordAttempt(
        {
          deliveryId: request.deliveryId,
          attempt: request.attempt,
          startedAt,
          durationMs: outcome.durationMs,
          statusCode: outcome.statusCode,
          error: outcome.error,
          succeeded: outcome.succeeded,
          nextAttemptAt: nextAttemptDue(request, new Date()),
        },
        request.attempt >= MAX_ATTEMPTS,
      );
      return {
        kind: outcome.succeeded ? 'delivered' : 'failed',
        statusCode: outcome.statusCode,
        error: outcome.error,
        ...(recorded.counterUnaffected ? { counterUnaffected: true } : {}),
      };
    },

    /** An attempt whose activity was lost (worker died, timed out) still counts as a failed attempt. */
    async recordLostAttempt(request: AttemptRequest & { error: string }): Promise<void> {
      await repositories.webhookDeliveries.recordAttempt(
        {
          deliveryId: request.deliveryId,
          attempt: request.attempt,
          startedAt: new Date(),
          durationMs: 0,
          statusCode: null,
          error: request.error,
          succeeded: false,
          nextAttemptAt: nextAttemptDue(request, new Date()),
        },
        request.attempt >= MAX_ATTEMPTS,
      );
    },

    /** Tells the endpoint's entity workflow, starting it if it is not running. */
    async reportAttemptOutcome(endpointId: number, outcome: AttemptOutcome): Promise<void> {
      // The company is only needed when this starts the entity (its search attributes).
      const endpoint = await repositories.webhookEndpoints.findById(endpointId);
      await signalWithStartWorkflow(deps.temporal, webhookEndpointWorkflow, {
        workflowId: workflowIdsFor(deps.temporal.taskQueue).endpoint(endpointId),
        subject: { companyId: endpoint?.company_id, endpointId },
        args: [{ endpointId }],
        signal: attemptOutcomeSignal,
        signalArgs: [outcome],
      });
    },

    /** Automatic deactivation at the threshold: disable, then end every pending delivery. */
    async disableEndpoint(endpointId: number, consecutiveFailures: number): Promise<number> {
      await repositories.webhookEndpoints.disable(endpointId, consecutiveFailures);
      return endPendingDeliveries(deps, endpointId, `endpoint disabled after ${consecutiveFailures} consecutive failures`);
    },

    /** The counter first, then the failed deliveries it now counts: a reader never sees them counted but not yet in it. */
    async mirrorConsecutiveFailures(endpointId: number, consecutiveFailures: number, countedFailedDeliveryIds: number[] = []): Promise<void> {
      await repositories.webhookEndpoints.mirrorConsecutiveFailures(endpointId, consecutiveFailures);
      await repositories.webhookDeliveries.markOutcomesCounted(endpointId, countedFailedDeliveryIds);
    },

    /** The repair schedule's step: starts deliveries recorded but never started (services/repair-unstarted-deliveries.ts). */
    async startUnstartedDeliveries(): Promise<RepairReport> {
      return repairUnstartedDeliveries(deps, { olderThanSeconds: deps.webhooks.repairAfterSeconds });
    },

    async purgeWebhookHistory(): Promise<{ deliveries: number; events: number }> {
      const deliveries = await repositories.webhookDeliveries.purgeExpired();
      const events = await repositories.events.purgeExpired();
      return { deliveries, events };
    },
  };
}
