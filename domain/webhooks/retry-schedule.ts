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

/**
 * The wait before a queued attempt whose endpoint had its share of attempts in flight comes back
 * (activities/attempt-shares.ts): 2 s, doubling to at most 30 s, each drawn between half and the
 * whole so a burst's attempts do not all come back together. Not an attempt: the schedule above
 * counts from when the attempt is finally made.
 */
export function delayWhileEndpointBusy(turn: number, random: number): number {
  const ceiling = Math.min(2_000 * 2 ** turn, 30_000);
  return Math.round(ceiling * (0.5 + random / 2));
}
