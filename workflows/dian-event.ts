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
    const cause = error.cause;
    const code = cause instanceof ApplicationFailure && cause.type ? cause.type : 'dian_unavailable';
    const message = cause?.message || 'DIAN could not be reached.';
    await failDianEvent(input.eventId, code, message);
  }
  const { company_id: companyId, ...record } = await dianEventRecord(input.eventId);
  await publishEvents([{ id: uuid4(), companyId, type: succeeded ? 'dian_event.completed' : 'dian_event.failed', data: record }]);
  return { succeeded };
}
