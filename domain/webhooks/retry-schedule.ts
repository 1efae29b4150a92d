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

/** The table's longest wait (2 h): a receiver's Retry-After never makes one wait longer. */
export const LONGEST_RETRY_DELAY_MS = Math.max(...RETRY_DELAYS_MS);
/**
 * How much later than the table a receiver's Retry-After may push a delivery's last attempt, all
 * its waits together: the delivery's overall deadline is the table's (its 5th attempt due 2 h 36 min
 * after the first) plus 2 h, so a delivery still ends within about 4 h 37 min however its receiver asks.
 */
export const RETRY_AFTER_ALLOWANCE_MS = 2 * 60 * 60_000;

/**
 * The wait before the next attempt after a failed one: the table's, or longer when the receiver
 * asked for it (a 429 or 503 with Retry-After, domain/webhooks/retry-after.ts), up to the table's
 * longest wait and to the allowance the delivery's earlier waits have not used. Never shorter than
 * the table's: a receiver cannot make us retry sooner than the contract's schedule.
 */
export function delayAfterFailedAttempt(tableDelayMs: number, allowanceLeftMs: number, retryAfterMs: number | null | undefined): number {
  if (retryAfterMs === null || retryAfterMs === undefined) return tableDelayMs;
  const asked = Math.min(retryAfterMs, LONGEST_RETRY_DELAY_MS, tableDelayMs + Math.max(allowanceLeftMs, 0));
  return Math.max(tableDelayMs, Math.ceil(asked));
}
