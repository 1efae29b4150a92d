/**
 * A receiver's Retry-After, read only on the answers that give it that meaning: 429 Too Many
 * Requests (RFC 6585) and 503 Service Unavailable (RFC 9110 §10.2.3). Elsewhere (a 500, a 3xx)
 * the header is ignored.
 */
const STATUSES_WITH_RETRY_AFTER: ReadonlySet<number> = new Set([429, 503]);

/** delay-seconds: one or more digits, nothing else (RFC 9110 §10.2.3). */
const DELAY_SECONDS = /^\d+$/;
/**
 * HTTP-date's three forms (RFC 9110 §5.6.7): IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`, the
 * obsolete RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT` and asctime `Sun Nov  6 08:49:37 1994`
 * (which is GMT though it does not say so). Anything else Date.parse would take (`2026-11-25`,
 * `tomorrow`-like locale forms) is not an HTTP-date and is ignored.
 */
const IMF_OR_RFC850 = /^[A-Za-z]{3,9}, \d{2}[ -][A-Za-z]{3}[ -]\d{2,4} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME = /^[A-Za-z]{3} [A-Za-z]{3} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * How long the receiver asked us to wait, in ms from `now`, or null when it asked nothing
 * usable (another status, no header, a malformed value, a date already past). A list of values
 * (a repeated header) is malformed: the receiver's intent is unclear.
 */
export function retryAfterMs(statusCode: number | null, header: string | undefined, now: Date): number | null {
  if (statusCode === null || !STATUSES_WITH_RETRY_AFTER.has(statusCode) || header === undefined) return null;
  const value = header.trim();
  if (DELAY_SECONDS.test(value)) {
    // Digits only, so never negative; a huge number is bounded by the schedule, not here.
    const seconds = Number(value);
    return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null;
  }
  if (!IMF_OR_RFC850.test(value) && !ASCTIME.test(value)) return null;
  const at = Date.parse(ASCTIME.test(value) ? `${value} GMT` : value);
  if (Number.isNaN(at)) return null;
  const wait = at - now.getTime();
  return wait > 0 ? wait : null;
}
