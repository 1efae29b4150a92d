import {
  allHandlersFinished,
  condition,
  continueAsNew,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { createWebhookActivities } from '../activities/webhooks';
import { EndpointHealth } from '../domain/webhooks/endpoint-health';
import { MAX_ATTEMPTS } from '../domain/webhooks/retry-schedule';
import {
  ACKNOWLEDGE_COUNTED_FAILURES_PATCH,
  attemptOutcomeSignal,
  COUNT_FAILED_DELIVERIES_PATCH,
  endpointDeletedSignal,
  LOCAL_BOOKKEEPING_PATCH,
  SETTLE_BEFORE_CONTINUE_AS_NEW_PATCH,
  endpointHealthQuery,
  endpointReenabledSignal,
  type EndpointMessage,
  type EndpointWorkflowInput,
} from './messages';

const retry = { initialInterval: '1 second', maximumInterval: '1 minute' } as const;
const { disableEndpoint, mirrorConsecutiveFailures } = proxyActivities<ReturnType<typeof createWebhookActivities>>({ startToCloseTimeout: '1 minute', retry });
// The mirror is one row write: a local activity in the workflow task that decided it (runs
// started before LOCAL_BOOKKEEPING_PATCH scheduled an activity, and replay so).
const local = proxyLocalActivities<ReturnType<typeof createWebhookActivities>>({ startToCloseTimeout: '10 seconds', retry });
const mirror = (endpointId: number, consecutiveFailures: number, countedFailedDeliveryIds: number[]) =>
  (patched(LOCAL_BOOKKEEPING_PATCH) ? local : { mirrorConsecutiveFailures }).mirrorConsecutiveFailures(endpointId, consecutiveFailures, countedFailedDeliveryIds);

const MAX_HISTORY_EVENTS = 5_000;

/**
 * The long-lived entity of one webhook endpoint. It owns consecutive_failures: every failed
 * delivery (its 5th attempt failed) adds one, a delivered one resets it, and the 20th disables
 * the endpoint (and ends its pending deliveries). Re-enabling resets it. Messages are handled
 * in arrival order; the counter is mirrored to Postgres for the API. Ends when the endpoint is
 * deleted. Runs started before the patch counted failed attempts until they reach it.
 */
export async function webhookEndpointWorkflow(input: EndpointWorkflowInput): Promise<void> {
  const health = new EndpointHealth(input.health);
  const inbox: EndpointMessage[] = [...(input.pending ?? [])];
  let deleted = false;
  let mirroredInThisRun = false;

  setHandler(attemptOutcomeSignal, (outcome) => void inbox.push({ kind: 'outcome', outcome }));
  setHandler(endpointReenabledSignal, () => void inbox.push({ kind: 'reenabled' }));
  setHandler(endpointDeletedSignal, () => void (deleted = true));
  setHandler(endpointHealthQuery, () => health.snapshot());

  const historyLimit = input.historyLimit ?? MAX_HISTORY_EVENTS;
  const historyIsLong = () => workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > historyLimit;
  // Messages not yet handled go to the next run, which handles them first.
  const continueRun = () =>
    continueAsNew<typeof webhookEndpointWorkflow>({ endpointId: input.endpointId, health: health.snapshot(), historyLimit, ...(inbox.length > 0 ? { pending: [...inbox] } : {}) });

  // Runs started before the patch decide to continue as new after the mirror, and replay so.
  const settlesBeforeContinuing = patched(SETTLE_BEFORE_CONTINUE_AS_NEW_PATCH);
  const settleTimer = new SettleTimer();

  for (;;) {
    await condition(() => inbox.length > 0 || deleted || settleTimer.fired || (!settlesBeforeContinuing && historyIsLong()));
    if (deleted) return;
    if (settleTimer.fired) {
      await condition(allHandlersFinished);
      await continueRun();
    }
    // Read where messages woke the run: after the mirror (a local activity) the history length a
    // replay sees is not the one the first execution saw (SettleTimer).
    if (settlesBeforeContinuing && historyIsLong()) settleTimer.start();

    const before = health.consecutiveFailures;
    let reenabled = false;
    /** Failed deliveries handled in this batch: flagged uncounted in Postgres until the mirror below. */
    const countedFailures: number[] = [];
    while (inbox.length > 0) {
      const message = inbox.shift()!;
      if (message.kind === 'reenabled') {
        health.reenable();
        reenabled = true;
        continue;
      }
      const { outcome } = message;
      if (!outcome.succeeded && outcome.attempt >= MAX_ATTEMPTS) countedFailures.push(outcome.deliveryId);
      if (health.record(outcome, patched(COUNT_FAILED_DELIVERIES_PATCH) ? 'deliveries' : 'attempts') === 'disable') {
        await disableEndpoint(input.endpointId, health.consecutiveFailures);
      }
    }
    // A run mirrors at least once, even when its first outcome changes nothing it knows of: a run
    // started afresh (e.g. after the previous one was lost) must not leave an older count in
    // Postgres. Only runs with the patch marker do (older histories replay unchanged).
    const firstMirrorOfRun = !mirroredInThisRun && patched(COUNT_FAILED_DELIVERIES_PATCH);
    // A failure and a success in one batch leave the count as it was, but the failure must still
    // be marked counted (or delivered outcomes would be reported for ever); runs before the patch
    // did not mirror then and replay unchanged.
    const acknowledgeOnly = countedFailures.length > 0 && patched(ACKNOWLEDGE_COUNTED_FAILURES_PATCH);
    if (reenabled || health.consecutiveFailures !== before || firstMirrorOfRun || acknowledgeOnly) {
      mirroredInThisRun = true;
      await mirror(input.endpointId, health.consecutiveFailures, countedFailures);
    }

    if (!settlesBeforeContinuing && historyIsLong() && inbox.length === 0) {
      await condition(allHandlersFinished);
      await continueRun();
    }
  }
}

/**
 * When a long history calls for continuing as new, the entity starts a timer and keeps handling
 * its messages; it continues as new when it wakes and the timer has fired, handing the messages
 * not yet handled to the next run. Runs before SETTLE_BEFORE_CONTINUE_AS_NEW_PATCH continued in
 * the activation that applied the mirror's result and dropped outcomes (several per 150 signalled
 * one at a time): a local activity's result is applied in the workflow task that received it the
 * first time, but, replayed, right after the activation that scheduled it. When an outcome
 * arrived while that task completed, the server refused the continue-as-new, the worker replayed,
 * and the run continued in the replay before the outcome was applied. The timer's firing is an
 * event like a signal: a replay applies it with the messages of its task, so the decision sees
 * the same inbox both times. One timer per run (every ~5,000 events).
 */
class SettleTimer {
  private started = false;
  fired = false;

  start(): void {
    if (this.started) return;
    this.started = true;
    // A cancelled run ends in the loop's own wait; the timer's rejection has nothing to add.
    sleep(1).then(
      () => void (this.fired = true),
      () => undefined,
    );
  }
}
