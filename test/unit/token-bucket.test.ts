import test from 'ava';
import { TokenBucketLimiter } from '../../domain/token-bucket';

test('allows a burst, then refills at the sustained rate', (t) => {
  let now = 0;
  const limiter = new TokenBucketLimiter(10, 5, () => now);
  for (let i = 0; i < 5; i += 1) t.true(limiter.take('k').allowed);
  const refused = limiter.take('k');
  t.false(refused.allowed);
  t.is(Math.round(refused.retryAfterMs), 100);
  now += 100;
  t.true(limiter.take('k').allowed);
  t.false(limiter.take('k').allowed);
});

test('callers do not share buckets', (t) => {
  const limiter = new TokenBucketLimiter(1, 1, () => 0);
  t.true(limiter.take('a').allowed);
  t.false(limiter.take('a').allowed);
  t.true(limiter.take('b').allowed);
});

test('a refunded token can be taken again, never beyond the burst', (t) => {
  const limiter = new TokenBucketLimiter(1, 2, () => 0);
  t.true(limiter.take('k').allowed);
  t.true(limiter.take('k').allowed);
  t.false(limiter.take('k').allowed);
  limiter.refund('k');
  t.true(limiter.take('k').allowed);
  limiter.refund('k');
  limiter.refund('k');
  limiter.refund('k');
  t.is(limiter.take('k').remaining, 1);
});
