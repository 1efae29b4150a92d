import { CancellationScope, isCancellation, patched, proxyActivities } from '@temporalio/workflow';
import type { CancelledWork, createSteeringActivities } from '../activities/steering';

const { settleCancelledWork } = proxyActivities<ReturnType<typeof createSteeringActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', maximumInterval: '1 minute' },
});

/**
 * Patch id: a cancelled workflow settles its record before it ends. Runs cancelled before the
 * patch ended at once, leaving their record pending (histories replay unchanged).
 */
export const SETTLE_ON_CANCELLATION_PATCH = 'settle-on-cancellation';

/**
 * Whether a run settles its record when cancelled: a workflow type that existed before the patch
 * asks it (its older runs did not); a type started after it always settles and records no marker.
 */
export type SettlesOnCancellation = 'ask-patch' | 'always';

/**
 * When `error` is the workflow's cancellation (an operator's `temporal workflow cancel`, or the
 * API cancelling it), settles the record it is about — even though the workflow is cancelled —
 * so the API never shows it pending for ever (docs/operations.md, Steering workflows).
 */
export async function settleIfCancelled(error: unknown, work: CancelledWork, settles: SettlesOnCancellation = 'ask-patch'): Promise<void> {
  if (!isCancellation(error) || (settles === 'ask-patch' && !patched(SETTLE_ON_CANCELLATION_PATCH))) return;
  await CancellationScope.nonCancellable(() => settleCancelledWork(work));
}

/** Runs a workflow's body; when the workflow is cancelled, settles its record and ends cancelled. */
export async function settlingOnCancellation<T>(work: CancelledWork, body: () => Promise<T>, settles: SettlesOnCancellation = 'ask-patch'): Promise<T> {
  try {
    return await body();
  } catch (error) {
    await settleIfCancelled(error, work, settles);
    throw error;
  }
}
