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
import { AttemptShares, type AttemptShareLimits, type Release } from './attempt-shares';

export type WebhookActivityDependencies = {
  repositories: Repositories;
  secretBox: SecretBox;
  temporal: TemporalTarget;
  webhooks: {
    allowPrivateTargets: boolean;
    repairAfterSeconds: number;
    /**
     * Attempts this worker runs inline (deliverAttemptInline) at once (worker/tuning.ts). An inline
     * attempt is a local activity: it holds its delivery's workflow task, and that task's
     * workflow-task slot, for as long as the receiver takes (up to ATTEMPT_TIMEOUT_MS).
     */
    inlineAttempts: number;
    /** Attempts one endpoint, and one company, may have in flight in this worker (worker/tuning.ts). */
    attemptShares: AttemptShareLimits;
  };
};

/**
 * How long a queued attempt waits for its endpoint's share before it answers endpoint_busy: long
 * enough for a fast receiver's attempts to end, far shorter than a slow one's.
 */
const SHARE_WAIT_MS = 250;

/**
 * A failed delivery still uncounted this long after it failed is recounted: its entity normally
 * counts it within moments of the outcome signal, and a younger one may still be on its way.
 */
const RECOUNT_FAILURES_AFTER_SECONDS = 600;
/** Failures looked at per recount run; the next run goes on. */
const RECOUNT_FAILURES_PER_RUN = 500;

/** An inline attempt the worker had no room for: the workflow makes it as an activity task instead. */
export type DeferredAttempt = { kind: 'deferred' };
/** A queued attempt whose endpoint (or company) had its share of attempts in flight: nothing sent, nothing recorded. */
export type BusyEndpoint = { kind: 'endpoint_busy' };
/**
 * queued: a short wait for a place in the endpoint's and company's shares; uncapped: a place
 * whatever the share (older runs cannot come back later); inline: outside the shares, bounded by
 * the inline share alone. An inline attempt refused by a share was deferred to an activity task
 * after reading its context, and the queued attempt read it again: at one endpoint, a burst's
 * CPU per delivery rose from 17.1 to 21.7 ms (bench:webhooks, E = 1). Outside the shares, a
 * slow receiver holds at most the inline share (half the workflow-task slots) and its share of
 * the attempt queue, and every other endpoint's attempts still find the rest of that queue.
 */
type Admission = 'inline' | 'queued' | 'uncapped';

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
  /** The workflow tries again later when told endpoint_busy (webhookDeliveryWorkflowV3's queued attempts). */
  mayComeBackLater?: boolean;
};

/** When the next attempt is due, measured from the end of this one, as the workflow's schedule is. */
function nextAttemptDue(request: AttemptRequest, endedAt: Date): Date | null {
  if (request.retryDelayMs === undefined) return request.nextAttemptAt ? new Date(request.nextAttemptAt) : null;
  return request.retryDelayMs === null ? null : new Date(endedAt.getTime() + request.retryDelayMs);
}

export function createWebhookActivities(deps: WebhookActivityDependencies) {
  const { repositories } = deps;

  /** Signals an attempt's outcome to its endpoint's entity workflow, starting the entity if it is not running. */
  const signalOutcome = (endpointId: number, companyId: number | undefined, outcome: AttemptOutcome) =>
    signalWithStartWorkflow(deps.temporal, webhookEndpointWorkflow, {
      workflowId: workflowIdsFor(deps.temporal.taskQueue).endpoint(endpointId),
      subject: { companyId, endpointId },
      args: [{ endpointId }],
      signal: attemptOutcomeSignal,
      signalArgs: [outcome],
    });

  const shares = new AttemptShares(deps.webhooks.attemptShares);
  const outsideShares: Release = () => undefined;
  const admit = (admission: Admission, target: { endpointId: number; companyId: number }): Promise<Release | null> => {
    if (admission === 'inline') return Promise.resolve(outsideShares);
    if (admission === 'uncapped') return Promise.resolve(shares.occupy(target));
    return shares.enter(target, admission === 'queued' ? SHARE_WAIT_MS : 0);
  };

  /** One delivery attempt: check the endpoint, take a place in its share, sign the stored body, POST, record the outcome. */
  async function attemptDelivery(request: AttemptRequest, admission: Admission): Promise<AttemptResult | BusyEndpoint> {
    const { endpoint, deliveryStatus, payload: body } = await repositories.webhookDeliveries.attemptContext(request.deliveryId, request.endpointId, request.eventId);
    const unavailable = !endpoint || endpoint.deleted_at ? 'endpoint deleted' : !endpoint.enabled ? 'endpoint disabled' : null;
    if (unavailable || !endpoint) {
      const reason = `${unavailable}; not sent`;
      await repositories.webhookDeliveries.failIfPending(request.deliveryId, reason);
      return { kind: 'endpoint_unavailable', reason };
    }
    if (deliveryStatus === 'delivered') {
      // An inline attempt run again after its worker died between recording the delivery and
      // telling the workflow (a local activity is at least once): it was delivered.
      return { kind: 'delivered', statusCode: null, error: null };
    }
    if (deliveryStatus !== 'pending') {
      return { kind: 'endpoint_unavailable', reason: `delivery is ${deliveryStatus ?? 'gone'}` };
    }
    if (!body) throw new Error(`event ${request.eventId} has no payload`);

    const release = await admit(admission, { endpointId: request.endpointId, companyId: endpoint.company_id });
    if (!release) return { kind: 'endpoint_busy' };
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
    }).finally(release);
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
  }

  let inlineRunning = 0;

  return {
    /** publishEventWorkflow's first step (runs started before events were published by activities). */
    async recordEvent(input: PublishEventInput): Promise<DeliveryInput[]> {
      return recordEventDeliveries(repositories, input);
    },

    /** Starts one delivery workflow per delivery (idempotent, see startDeliveryWorkflows). */
    async startDeliveries(deliveries: DeliveryInput[]): Promise<void> {
      await startDeliveryWorkflows(deps.temporal, deliveries);
    },

    /**
     * One delivery attempt as an activity task. A V3 run's attempt (mayComeBackLater) answers
     * endpoint_busy when its endpoint's share stays full; older runs' attempts are always made.
     */
    async deliverAttempt(request: AttemptRequest): Promise<AttemptResult | BusyEndpoint> {
      return attemptDelivery(request, request.mayComeBackLater ? 'queued' : 'uncapped');
    },

    /**
     * The same attempt as a local activity (webhookDeliveryWorkflowV3), when fewer than
     * `inlineAttempts` run in this worker; otherwise deferred, made as an activity task.
     */
    async deliverAttemptInline(request: AttemptRequest): Promise<AttemptResult | DeferredAttempt> {
      if (inlineRunning >= deps.webhooks.inlineAttempts) return { kind: 'deferred' };
      inlineRunning += 1;
      try {
        const result = await attemptDelivery(request, 'inline');
        // Never endpoint_busy (inline attempts are outside the shares); typed as the queued ones.
        return result.kind === 'endpoint_busy' ? { kind: 'deferred' } : result;
      } finally {
        inlineRunning -= 1;
      }
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
      await signalOutcome(endpointId, endpoint?.company_id, outcome);
    },

    /**
     * The recount schedule's step: failed deliveries whose outcome never reached their
     * endpoint's entity are reported again (the entity ignores one it has already counted among
     * its recent outcomes, and marks it counted either way); those whose count no longer matters
     * (UncountedFailure.moot) are only marked counted. Without it, such a failure would be missing
     * from the endpoint's count, and every later success would signal the entity.
     */
    async recountUncountedFailures(): Promise<{ reported: number; cleared: number }> {
      const failures = await repositories.unfinishedWork.uncountedFailures(RECOUNT_FAILURES_AFTER_SECONDS, RECOUNT_FAILURES_PER_RUN);
      for (const failure of failures.filter((candidate) => candidate.moot)) {
        await repositories.webhookDeliveries.markOutcomesCounted(failure.endpoint_id, [failure.id]);
      }
      const reportable = failures.filter((candidate) => !candidate.moot);
      for (const failure of reportable) {
        await signalOutcome(failure.endpoint_id, failure.company_id, { deliveryId: failure.id, attempt: MAX_ATTEMPTS, succeeded: false });
      }
      return { reported: reportable.length, cleared: failures.length - reportable.length };
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
