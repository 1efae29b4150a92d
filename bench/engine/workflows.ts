import { patched } from '@temporalio/workflow';
import { noopWorkflow } from '../webhooks/noop-workflow';

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
