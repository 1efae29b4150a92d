import test from 'ava';
import { retryAfterMs } from '../../domain/webhooks/retry-after';
import { delayAfterFailedAttempt, LONGEST_RETRY_DELAY_MS, RETRY_AFTER_ALLOWANCE_MS } from '../../domain/webhooks/retry-schedule';

const now = new Date('2026-11-25T12:00:00Z');
const MINUTE = 60_000;

test('Retry-After as delay-seconds or any of the three HTTP-date forms, on a 429 or 503', (t) => {
  t.is(retryAfterMs(429, '120', now), 120_000);
  t.is(retryAfterMs(503, ' 30 ', now), 30_000);
  t.is(retryAfterMs(503, 'Wed, 25 Nov 2026 12:10:00 GMT', now), 10 * MINUTE);
  t.is(retryAfterMs(429, 'Wednesday, 25-Nov-26 12:10:00 GMT', now), 10 * MINUTE);
  t.is(retryAfterMs(429, 'Wed Nov 25 12:10:00 2026', now), 10 * MINUTE);
});

test('Retry-After is ignored on other statuses, and when absent, malformed or already past', (t) => {
  for (const status of [500, 502, 504, 301, 200, null]) t.is(retryAfterMs(status, '120', now), null, String(status));
  t.is(retryAfterMs(429, undefined, now), null);
  for (const value of ['', '0', '-5', '1.5', '1e3', '120, 60', 'soon', '2026-11-25T12:10:00Z', 'Wed, 25 Nov 2026 11:50:00 GMT']) {
    t.is(retryAfterMs(503, value, now), null, value);
  }
});

test('the wait after a failed attempt: the table\'s, or the receiver\'s when longer, within 2 h and the allowance', (t) => {
  t.is(delayAfterFailedAttempt(MINUTE, RETRY_AFTER_ALLOWANCE_MS, undefined), MINUTE, 'no Retry-After: the table');
  t.is(delayAfterFailedAttempt(MINUTE, RETRY_AFTER_ALLOWANCE_MS, 5_000), MINUTE, 'never sooner than the table');
  t.is(delayAfterFailedAttempt(MINUTE, RETRY_AFTER_ALLOWANCE_MS, 20 * MINUTE), 20 * MINUTE);
  t.is(delayAfterFailedAttempt(MINUTE, RETRY_AFTER_ALLOWANCE_MS, 10 * 3600_000), LONGEST_RETRY_DELAY_MS, 'at most the table\'s longest wait');
  t.is(delayAfterFailedAttempt(5 * MINUTE, 30 * MINUTE, 3600_000), 35 * MINUTE, 'at most the allowance left beyond the table');
  t.is(delayAfterFailedAttempt(30 * MINUTE, 0, 3600_000), 30 * MINUTE, 'no allowance left: the table');
  t.is(delayAfterFailedAttempt(LONGEST_RETRY_DELAY_MS, RETRY_AFTER_ALLOWANCE_MS, 5 * 3600_000), LONGEST_RETRY_DELAY_MS);
});
