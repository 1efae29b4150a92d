import { ActivityFailure, ApplicationFailure, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { createDianEventActivities } from '../activities/dian-events';
import type { createIngestionActivities } from '../activities/ingestion';
import { settlingOnCancellation } from './settle-on-cancellation';
import { OUTAGE_TOLERANT_RETRY_POLICY } from './outage-tolerant-retry';

type DianEventActivities = ReturnType<typeof createDianEventActivities>;
type IngestionActivities = ReturnType<typeof createIngestionActivities>;

const { sendDianEvent } = proxyActivities<DianEventActivities>({
  startToCloseTimeout: '2 minutes',
  // The attempt heartbeats (activities/dian-events.ts): a lost worker is retried after 20 s, not 2 min.
  heartbeatTimeout: '20 seconds',
  // Invisible: only the final outcome is published. DIAN's 8 failures: activities/dian-events.ts DIAN_EVENT_ATTEMPTS.
  retry: OUTAGE_TOLERANT_RETRY_POLICY,
});
const { failDianEvent, dianEventRecord } = proxyActivities<DianEventActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});
const { publishEvents } = proxyActivities<IngestionActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * One buyer event (030, 032 or 033) for a received invoice: build, sign, zip and send it, then
 * publish dian_event.completed or dian_event.failed with the Tax-authority event record.
 * Cancelled, the event ends failed (code cancelled) with dian_event.failed.
 */
export async function dianEventWorkflow(input: { eventId: number }): Promise<{ succeeded: boolean }> {
  return settlingOnCancellation({ kind: 'dianEvent', eventId: input.eventId }, () => sendAndPublish(input));
}

async function sendAndPublish(input: { eventId: number }): Promise<{ succeeded: boolean }> {
  let succeeded = true;
  try {
    await sendDianEvent(input.eventId);
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    succeeded = false;
    const failure = dianEventFailureOf(error);
    await failDianEvent(input.eventId, failure.code, failure.message);
  }
  const { company_id: companyId, ...record } = await dianEventRecord(input.eventId);
  await publishEvents([{ id: uuid4(), companyId, type: succeeded ? 'dian_event.completed' : 'dian_event.failed', data: record }]);
  return { succeeded };
}

/**
 * The code and message an event that failed for good is recorded with. The send activity's own
 * failures carry their code (DIAN's StatusCode, `dian_…`, `certificate_invalid`, …: docs/dian.md).
 * Anything else is an error of the service's own (its database or blob store down through every
 * attempt, a bug): its type is only the JavaScript error's name (`KnexTimeoutError`, `Error`) and
 * its message may name internal hosts, so neither is shown to the client. Such an error made final
 * at its 8th attempt (activities/dependency-retries.ts) is non-retryable too, but carries the error
 * as its cause, which the activity's own codes never do.
 */
export function dianEventFailureOf(error: ActivityFailure): { code: string; message: string } {
  const cause = error.cause;
  if (cause instanceof ApplicationFailure && cause.type && ((cause.nonRetryable && !cause.cause) || cause.type.startsWith('dian_'))) {
    return { code: cause.type, message: cause.message || 'DIAN refused the event.' };
  }
  if (cause instanceof ApplicationFailure) {
    return { code: 'service_unavailable', message: 'The event could not be sent: the service could not reach its own storage through every attempt. Send it again.' };
  }
  return { code: 'dian_unavailable', message: cause?.message || 'DIAN could not be reached.' };
}
