import { proxyActivities } from '@temporalio/workflow';

/** The activities of the baseline worker in bench/webhooks.ts: one that does nothing. */
export type NoopActivities = { noop(): Promise<void> };

const { noop } = proxyActivities<NoopActivities>({ startToCloseTimeout: '30 seconds' });

/**
 * Baseline of bench/webhooks.ts: the least work a Temporal workflow with one activity can do
 * (one workflow task, one activity, one more workflow task). Bench-only; not in the worker.
 */
export async function noopWorkflow(): Promise<void> {
  await noop();
}
