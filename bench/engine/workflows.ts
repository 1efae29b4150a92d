import { patched, proxyLocalActivities } from '@temporalio/workflow';
import { noopWorkflow, type NoopActivities } from '../webhooks/noop-workflow';

export { noopWorkflow };

/**
 * The no-op workflow plus what a webhook delivery adds in the engine besides its attempt: a
 * patch marker (with the TemporalChangeVersion search-attribute upsert the SDK records with it).
 * bench/engine.ts starts it with a delivery's search attributes. Bench-only.
 */
export async function deliveryShapedNoopWorkflow(): Promise<void> {
  patched('bench-patch');
  await noopWorkflow();
}

const local = proxyLocalActivities<NoopActivities>({ startToCloseTimeout: '30 seconds' });

/**
 * The no-op workflow with its step as a local activity: run by the worker inside the first
 * workflow task, recorded as a marker, so one workflow task and no activity task. Bench-only.
 */
export async function localNoopWorkflow(): Promise<void> {
  await local.noop();
}
