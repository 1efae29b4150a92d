import { ActivityFailure, ApplicationFailure, proxyActivities, uuid4 } from '@temporalio/workflow';
import type { createDianEventActivities } from '../activities/dian-events';
import type { createIngestionActivities } from '../activities/ingestion';
import { settlingOnCancellation } from './settle-on-cancellation';

type DianEventActivities = ReturnType<typeof createDianEventActivities>;
type IngestionActivities = ReturnType<typeof createIngestionActivities>;

/**
 * Bounded retries of transient DIAN failures (network, timeout, HTTP 5xx): 8 attempts from 5 s
 * to 5 min, about 15 minutes in all. They are invisible: only the final outcome is published.
 */
const { sendDianEvent } = proxyActivities<DianEventActivities>({
  startToCloseTimeout: '2 minutes',
  // The attempt heartbeats (activities/dian-events.ts): a lost worker is retried after 20 s, not 2 min.
  heartbeatTimeout: '20 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 8 },
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
 * its message may name internal hosts, so neither is shown to the client.
 */
export function dianEventFailureOf(error: ActivityFailure): { code: string; message: string } {
  const cause = error.cause;
  if (cause instanceof ApplicationFailure && cause.type && (cause.nonRetryable || cause.type.startsWith('dian_'))) {
    return { code: cause.type, message: cause.message || 'DIAN refused the event.' };
  }
  if (cause instanceof ApplicationFailure) {
    return { code: 'service_unavailable', message: 'The event could not be sent: the service could not reach its own storage through every attempt. Send it again.' };
  }
  return { code: 'dian_unavailable', message: cause?.message || 'DIAN could not be reached.' };
}
