/**
 * Spec, Retries: attempt 1 immediately, then 1 min, 5 min, 30 min and 2 h after the previous
 * attempt; after the 5th failure the delivery is failed.
 */
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const DISABLE_AFTER_CONSECUTIVE_FAILURES = 20;
export const DELIVERY_RETENTION_DAYS = 30;
export const ROTATED_SECRET_GRACE_MS = 24 * 60 * 60_000;

/** The wait before attempt `attempt` (1-based); undefined when no such attempt exists. */
export function delayBeforeAttempt(attempt: number): number | undefined {
  if (attempt === 1) return 0;
  return RETRY_DELAYS_MS[attempt - 2];
}
