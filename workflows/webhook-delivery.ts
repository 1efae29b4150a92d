import { ActivityFailure, ApplicationFailure, isCancellation, patched, proxyActivities, proxyLocalActivities, sleep, TemporalFailure, TimeoutFailure, workflowInfo } from '@temporalio/workflow';
import type { AttemptRequest, AttemptResult, createWebhookActivities } from '../activities/webhooks';
import { delayBeforeAttempt, delayWhileEndpointBusy, MAX_ATTEMPTS } from '../domain/webhooks/retry-schedule';
import { COUNT_FAILED_DELIVERIES_PATCH, LOCAL_BOOKKEEPING_PATCH, webhookAttemptQueueOf, type DeliveryInput } from './messages';
import { settleIfCancelled, type SettlesOnCancellation } from './settle-on-cancellation';

type WebhookActivities = ReturnType<typeof createWebhookActivities>;

// The workflow owns the retry schedule: an attempt is never retried by Temporal.
const attemptOptions = { startToCloseTimeout: '25 seconds', retry: { maximumAttempts: 1 } } as const;
const { deliverAttempt } = proxyActivities<WebhookActivities>(attemptOptions);
// A first attempt inside the workflow task that decides it: no activity task, no second workflow
// task (decision 0020). The worker defers it to deliverAttempt when it runs enough inline already.
const { deliverAttemptInline } = proxyLocalActivities<WebhookActivities>(attemptOptions);
const bookkeepingRetry = { initialInterval: '1 second', maximumInterval: '1 minute' } as const;
const remoteBookkeeping = proxyActivities<WebhookActivities>({ startToCloseTimeout: '30 seconds', retry: bookkeepingRetry });
// One row write, or one signal: short enough to run inside the workflow task that needs it,
// without an activity task's round trips (retried in the worker, then by server timers).
const localBookkeeping = proxyLocalActivities<WebhookActivities>({ startToCloseTimeout: '10 seconds', retry: bookkeepingRetry });
type Bookkeeping = typeof localBookkeeping;

/**
 * The branches runs of the first delivery type (webhookDeliveryWorkflow) decide with patches, and
 * runs of webhookDeliveryWorkflowV2 always take: they record no patch marker, and no
 * TemporalChangeVersion upsert with it (two history events and one Cloud action per delivery).
 */
type DeliveryRevision = {
  /** How an attempt is made: an activity task, or inline when the worker has room (V3). */
  attempt: (request: AttemptRequest) => Promise<AttemptResult>;
  /** Only the delivery's outcome is reported to the endpoint's entity, not each failed attempt. */
  reportsOnlyOutcomes: boolean;
  /** Where the short database steps run (local activities, or activity tasks in older runs). */
  bookkeeping: () => Bookkeeping;
  settlesOnCancellation: SettlesOnCancellation;
};

/**
 * One event to one endpoint: attempts at 0, +1 min, +5 min, +30 min and +2 h after the end of
 * the previous one; delivered on the first 2xx, failed after the fifth failure. The delivery's
 * outcome (delivered, or failed after its 5th attempt) is reported to the endpoint's entity
 * workflow, which counts consecutive failed deliveries, unless it cannot change that count (a
 * delivered one while the count is 0 and no failure is uncounted). Cancelled when the endpoint
 * is disabled; cancelled by an operator, the delivery ends failed.
 */
export async function webhookDeliveryWorkflowV3(input: DeliveryInput): Promise<'delivered' | 'failed'> {
  return deliver(input, { attempt: attemptInlineWhenRoom, reportsOnlyOutcomes: true, bookkeeping: () => localBookkeeping, settlesOnCancellation: 'always' });
}

/**
 * A first attempt inline when the worker has room; a retry always as an activity task: its
 * receiver failed or timed out before, so it is the likeliest to hold a workflow-task slot.
 */
async function attemptInlineWhenRoom(request: AttemptRequest): Promise<AttemptResult> {
  if (request.attempt > 1) return queuedAttempt(request);
  const inline = await deliverAttemptInline(request);
  return inline.kind === 'deferred' ? queuedAttempt(request) : inline;
}

/**
 * deliverAttempt as an activity task on the attempts' own queue (webhookAttemptQueueOf), named
 * from this run's queue: hanging receivers then hold the attempt worker's slots only. (Runs of
 * the older types keep scheduling theirs on the main queue, whose worker still has it.) While the
 * endpoint has its share of attempts in flight the activity sends nothing and answers
 * endpoint_busy at once, and the attempt comes back after a timer instead of waiting in a slot
 * other endpoints' deliveries need.
 */
async function queuedAttempt(request: AttemptRequest): Promise<AttemptResult> {
  const { deliverAttempt: onAttemptQueue } = proxyActivities<WebhookActivities>({ ...attemptOptions, taskQueue: webhookAttemptQueueOf(workflowInfo().taskQueue) });
  for (let turn = 0; ; turn += 1) {
    const result = await onAttemptQueue({ ...request, mayComeBackLater: true });
    if (result.kind !== 'endpoint_busy') return result;
    await sleep(delayWhileEndpointBusy(turn, Math.random()));
  }
}

/** An activity task of the older delivery types: they do not ask for a share, so it is always made. */
const attemptAsTask = deliverAttempt as (request: AttemptRequest) => Promise<AttemptResult>;

/**
 * The delivery type from decision 0018 until webhookDeliveryWorkflowV3: every attempt an
 * activity task. Kept registered for its runs still alive (up to ~2.6 h) and for the replay of
 * their histories.
 */
export async function webhookDeliveryWorkflowV2(input: DeliveryInput): Promise<'delivered' | 'failed'> {
  return deliver(input, { attempt: attemptAsTask, reportsOnlyOutcomes: true, bookkeeping: () => localBookkeeping, settlesOnCancellation: 'always' });
}

/**
 * The first delivery type, which every delivery ran until webhookDeliveryWorkflowV2: kept
 * registered for its runs still alive (up to ~2.6 h) and for the replay of their histories. It
 * asks its patches as it always did, so a replayed run takes the branches it took.
 */
export async function webhookDeliveryWorkflow(input: DeliveryInput): Promise<'delivered' | 'failed'> {
  // Runs started before the patch reported every attempt (the entity now ignores the
  // intermediate failures they report); decided once, so a replayed old run stays old.
  const reportsOnlyOutcomes = patched(COUNT_FAILED_DELIVERIES_PATCH);
  // Runs started before LOCAL_BOOKKEEPING_PATCH scheduled these steps as activities; they replay so.
  const bookkeeping = () => (patched(LOCAL_BOOKKEEPING_PATCH) ? localBookkeeping : remoteBookkeeping);
  return deliver(input, { attempt: attemptAsTask, reportsOnlyOutcomes, bookkeeping, settlesOnCancellation: 'ask-patch' });
}

async function deliver(input: DeliveryInput, revision: DeliveryRevision): Promise<'delivered' | 'failed'> {
  const { reportsOnlyOutcomes, bookkeeping } = revision;
  try {
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt += 1) {
      const wait = delayBeforeAttempt(attempt) ?? 0;
      if (wait > 0) await sleep(wait);
      const followingDelay = delayBeforeAttempt(attempt + 1);
      const request = {
        ...input,
        attempt,
        // The activity computes next_attempt_at when the attempt ends (retryDelayMs); nextAttemptAt
        // is the older, start-based estimate, kept for workers that still read it.
        retryDelayMs: followingDelay ?? null,
        nextAttemptAt: followingDelay === undefined ? null : new Date(Date.now() + followingDelay).toISOString(),
      };

      let succeeded: boolean;
      // Decided by the activity from the database, so a replay takes the same branch (older
      // results lack the field and report, as they did).
      let changesNothing = false;
      try {
        const result = await revision.attempt(request);
        if (result.kind === 'endpoint_unavailable') return 'failed';
        succeeded = result.kind === 'delivered';
        changesNothing = result.kind === 'delivered' && result.counterUnaffected === true;
      } catch (error) {
        const cause = lostAttemptCause(error);
        if (!cause) throw error;
        // The client reads last_error: it learns that the attempt was lost, not the worker's
        // internals (a failed statement's SQL); those are in the worker's log and the history.
        const lost = cause instanceof TimeoutFailure ? 'the worker stopped answering' : 'the worker failed while making or recording it';
        await bookkeeping().recordLostAttempt({ ...request, error: `attempt interrupted: ${lost}` });
        succeeded = false;
      }

      const final = succeeded || attempt === MAX_ATTEMPTS;
      if ((final || !reportsOnlyOutcomes) && !changesNothing) {
        await bookkeeping().reportAttemptOutcome(input.endpointId, { deliveryId: input.deliveryId, attempt, succeeded });
      }
      if (succeeded) return 'delivered';
    }
    return 'failed';
  } catch (error) {
    if (!isCancellation(error)) throw error;
    // Cancelled when the endpoint was disabled or deleted (its row is already failed), or by an
    // operator (the row is still pending): either way it ends failed.
    await settleIfCancelled(error, { kind: 'delivery', deliveryId: input.deliveryId }, revision.settlesOnCancellation);
    return 'failed';
  }
}

/**
 * Why an attempt was lost in the worker, or null when the error is not such a loss (a
 * cancellation, a bug in this workflow). An activity task's failure comes wrapped in an
 * ActivityFailure; a local activity's (an inline attempt's) comes as its own failure.
 */
function lostAttemptCause(error: unknown): TemporalFailure | null {
  if (isCancellation(error)) return null;
  if (error instanceof ActivityFailure) return error.cause instanceof TemporalFailure ? error.cause : error;
  return error instanceof ApplicationFailure || error instanceof TimeoutFailure ? error : null;
}
