import test from 'ava';
import { EndpointHealth } from '../../domain/webhooks/endpoint-health';

const fail = (deliveryId: number, attempt: number) => ({ deliveryId, attempt, succeeded: false });
/** A delivery that failed: its 5th attempt failed. */
const failedDelivery = (deliveryId: number) => fail(deliveryId, 5);

test('the 20th consecutive failed delivery disables, exactly once', (t) => {
  const health = new EndpointHealth();
  const decisions = Array.from({ length: 25 }, (_, i) => health.record(failedDelivery(i + 1)));
  t.deepEqual(decisions.map((d, i) => (d === 'disable' ? i + 1 : null)).filter(Boolean), [20]);
  t.false(health.enabled);
  t.is(health.consecutiveFailures, 25);
});

test('a failed attempt that is not the last changes nothing', (t) => {
  const health = new EndpointHealth();
  for (let delivery = 1; delivery <= 30; delivery += 1) {
    for (let attempt = 1; attempt <= 4; attempt += 1) t.is(health.record(fail(delivery, attempt)), 'none');
  }
  t.is(health.consecutiveFailures, 0);
  t.true(health.enabled);
});

test('a delivered delivery resets the counter, whatever attempt succeeded', (t) => {
  const health = new EndpointHealth();
  for (let i = 1; i <= 19; i += 1) health.record(failedDelivery(i));
  t.is(health.consecutiveFailures, 19);
  health.record({ deliveryId: 100, attempt: 3, succeeded: true });
  t.is(health.consecutiveFailures, 0);
  for (let i = 1; i <= 19; i += 1) t.is(health.record(failedDelivery(200 + i)), 'none');
  t.true(health.enabled);
});

test('a report received twice counts once', (t) => {
  const health = new EndpointHealth();
  health.record(failedDelivery(1));
  health.record(failedDelivery(1));
  t.is(health.consecutiveFailures, 1);
});

test('re-enabling resets the counter and allows a new deactivation', (t) => {
  const health = new EndpointHealth();
  for (let i = 1; i <= 20; i += 1) health.record(failedDelivery(i));
  t.false(health.enabled);
  health.reenable();
  t.true(health.enabled);
  t.is(health.consecutiveFailures, 0);
  let disabled = 0;
  for (let i = 1; i <= 20; i += 1) if (health.record(failedDelivery(1000 + i)) === 'disable') disabled += 1;
  t.is(disabled, 1);
});

test('the legacy attempts rule (entity runs recorded before the patch) counts every failed attempt', (t) => {
  const health = new EndpointHealth();
  const decisions = Array.from({ length: 20 }, (_, i) => health.record(fail(Math.floor(i / 5), (i % 5) + 1), 'attempts'));
  t.is(decisions.lastIndexOf('disable'), 19);
  t.is(health.consecutiveFailures, 20);
});

test('state survives a snapshot round trip (continue-as-new)', (t) => {
  const health = new EndpointHealth();
  health.record(failedDelivery(1));
  const restored = new EndpointHealth(health.snapshot());
  restored.record(failedDelivery(1));
  restored.record(failedDelivery(2));
  t.is(restored.consecutiveFailures, 2);
});
