import test from 'ava';
import { EndpointHealth } from '../../domain/webhooks/endpoint-health';

const fail = (deliveryId: number, attempt: number) => ({ deliveryId, attempt, succeeded: false });

test('the 20th consecutive failed attempt disables, exactly once', (t) => {
  const health = new EndpointHealth();
  const decisions = Array.from({ length: 25 }, (_, i) => health.record(fail(Math.floor(i / 5), (i % 5) + 1)));
  t.deepEqual(decisions.map((d, i) => (d === 'disable' ? i + 1 : null)).filter(Boolean), [20]);
  t.false(health.enabled);
  t.is(health.consecutiveFailures, 25);
});

test('any success resets the counter', (t) => {
  const health = new EndpointHealth();
  for (let i = 1; i <= 19; i += 1) health.record(fail(i, 1));
  health.record({ deliveryId: 100, attempt: 1, succeeded: true });
  t.is(health.consecutiveFailures, 0);
  for (let i = 1; i <= 19; i += 1) t.is(health.record(fail(200 + i, 1)), 'none');
  t.true(health.enabled);
});

test('a report received twice counts once', (t) => {
  const health = new EndpointHealth();
  health.record(fail(1, 1));
  health.record(fail(1, 1));
  t.is(health.consecutiveFailures, 1);
});

test('re-enabling resets the counter and allows a new deactivation', (t) => {
  const health = new EndpointHealth();
  for (let i = 1; i <= 20; i += 1) health.record(fail(i, 1));
  t.false(health.enabled);
  health.reenable();
  t.true(health.enabled);
  t.is(health.consecutiveFailures, 0);
  let disabled = 0;
  for (let i = 1; i <= 20; i += 1) if (health.record(fail(1000 + i, 1)) === 'disable') disabled += 1;
  t.is(disabled, 1);
});

test('state survives a snapshot round trip (continue-as-new)', (t) => {
  const health = new EndpointHealth();
  health.record(fail(1, 1));
  const restored = new EndpointHealth(health.snapshot());
  restored.record(fail(1, 1));
  restored.record(fail(1, 2));
  t.is(restored.consecutiveFailures, 2);
});
