import test from 'ava';
import { randomUUID } from 'node:crypto';
import { createRepositories } from '../../db/repositories';
import { publishEvent, recordEventDeliveries } from '../../services/publish-events';
import { costOfHistory, localActivityTypes } from '../../bench/support/temporal-cost';
import { workflowIdsFor } from '../../workflows/messages';
import { startReceiver } from '../support/receiver';
import { webhookAdmin } from '../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// A delivered delivery signals its endpoint's entity only when that can change the counter:
// never when consecutive_failures is 0 and no failed delivery is still uncounted
// (docs/decisions/0011-lean-webhook-pipeline.md). These tests prove the counter stays exact.
let world: WebhookWorld;
test.before(async () => {
  world = await startWebhookWorld();
});
test.after.always(async () => world?.close());

const repositories = () => createRepositories(world.database.db);

async function pendingDeliveries(companyId: number, count: number) {
  const deliveries = [];
  for (let i = 0; i < count; i += 1) {
    const [delivery] = await recordEventDeliveries(repositories(), { event: { id: randomUUID(), companyId, type: 'contact.created', data: { i } } });
    deliveries.push(delivery);
  }
  return deliveries;
}

const attempt = (deliveryId: number, attemptNumber: number, succeeded: boolean) => ({
  deliveryId,
  attempt: attemptNumber,
  startedAt: new Date(),
  durationMs: 1,
  statusCode: succeeded ? 200 : 500,
  error: succeeded ? null : 'HTTP 500',
  succeeded,
  nextAttemptAt: null,
});

test.serial('a success recorded after a failure the entity has not counted yet is reported; once counted and reset, it is not', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const endpoint = await admin.createEndpoint('http://127.0.0.1:9/hooks');
  const [failed, first, second, third, intermediate] = await pendingDeliveries(admin.company.id, 5);
  const deliveries = repositories().webhookDeliveries;

  // A healthy endpoint: a success changes nothing.
  t.deepEqual(await deliveries.recordAttempt(attempt(first.deliveryId, 1, true), false), { status: 'delivered', counterUnaffected: true });
  // A failed attempt that will be retried is no outcome: still nothing to change.
  t.deepEqual(await deliveries.recordAttempt(attempt(intermediate.deliveryId, 1, false), false), { status: 'pending', counterUnaffected: false });
  // A delivery fails (its last attempt): its failure is reported, not yet counted by the entity.
  t.deepEqual(await deliveries.recordAttempt(attempt(failed.deliveryId, 5, false), true), { status: 'failed', counterUnaffected: false });
  t.true((await world.database.db('webhook_deliveries').where({ id: failed.deliveryId }).first()).outcome_pending);
  // The counter in Postgres still says 0, but the success comes after that failure: it must reset it.
  t.deepEqual(await deliveries.recordAttempt(attempt(second.deliveryId, 1, true), false), { status: 'delivered', counterUnaffected: false });

  // The entity counts the failure (1, mirrored with the failure acknowledged): still a change to report.
  await repositories().webhookEndpoints.mirrorConsecutiveFailures(endpoint.id, 1);
  await deliveries.markOutcomesCounted(endpoint.id, [failed.deliveryId]);
  const [, fourth, fifth] = await pendingDeliveries(admin.company.id, 3);
  t.deepEqual(await deliveries.recordAttempt(attempt(fourth.deliveryId, 1, true), false), { status: 'delivered', counterUnaffected: false });
  // The success resets it to 0: from now on successes change nothing.
  await repositories().webhookEndpoints.mirrorConsecutiveFailures(endpoint.id, 0);
  t.deepEqual(await deliveries.recordAttempt(attempt(fifth.deliveryId, 1, true), false), { status: 'delivered', counterUnaffected: true });
  // A repeated record of a finished attempt (a lost activity's recordLostAttempt) never skips.
  t.deepEqual(await deliveries.recordAttempt(attempt(third.deliveryId, 1, true), false), { status: 'delivered', counterUnaffected: true });
  t.deepEqual(await deliveries.recordAttempt(attempt(third.deliveryId, 2, false), false), { status: 'delivered', counterUnaffected: false });
});

test.serial('failures and successes across concurrent deliveries keep the counter exact, with no signal where nothing changes', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  // Events whose data says fail are refused on every attempt; the others are accepted at once.
  const receiver = await startReceiver((request) => ({ status: (JSON.parse(request.body) as { data: { fail?: boolean } }).data.fail ? 500 : 200 }));
  // Published as the activities do (no time skipped meanwhile): every delivery workflow has started on return.
  const temporal = { client: world.env.client, taskQueue: world.taskQueue };
  const published: string[] = [];
  const publish = async (outcomes: ('fail' | 'ok')[]) => {
    const events: string[] = [];
    for (const [n, outcome] of outcomes.entries()) {
      const event = { id: randomUUID(), companyId: admin.company.id, type: 'document.imported', data: { n, fail: outcome === 'fail' } };
      await publishEvent({ repositories: repositories(), temporal }, { event });
      events.push(event.id);
    }
    published.push(...events);
    return events;
  };
  // Outcomes the deliveries reported to the entity, counted in the deliveries' own histories (the
  // reportAttemptOutcome local activity; first attempts run inline too, no attempt is lost). Not
  // the entity's signals: the time-skipping server gives every run a 10-year run timeout and jumps
  // to it whenever a result() finds the system idle, so the entity may end and start afresh.
  const reportsSent = async () => {
    let reports = 0;
    for (const eventId of published) {
      const history = await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).delivery(endpoint.id, eventId)).fetchHistory();
      reports += localActivityTypes(history.events ?? []).filter((type) => type === 'reportAttemptOutcome').length;
    }
    return reports;
  };
  const endpoint = await admin.createEndpoint(receiver.url, ['document.imported']);
  try {
    // 1. Four successes at once on a healthy endpoint: no signal at all (the entity never starts).
    t.deepEqual(await world.immediateDeliveryResults(endpoint.id, await publish(['ok', 'ok', 'ok', 'ok'])), Array(4).fill('delivered'));
    t.is(await reportsSent(), 0);

    // 2. Three failures and two successes at once: the successes end first (attempt 1) and change
    //    nothing; the failures end 2 h 36 min later and count 3.
    const mixed = await publish(['fail', 'ok', 'fail', 'ok', 'fail']);
    t.deepEqual(await world.deliveryResults(endpoint.id, mixed), ['failed', 'delivered', 'failed', 'delivered', 'failed']);
    t.is(await world.consecutiveFailures(endpoint.id, 3), 3);
    t.is(await reportsSent(), 3);
    // A failed delivery's history: the first attempt inline, the four retries as activity tasks,
    // the outcome report as a local activity, four timers.
    const failedRun = await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).delivery(endpoint.id, mixed[0])).fetchHistory();
    t.like(costOfHistory(failedRun.events ?? []), { activityTasks: 4, localActivities: 2, timers: 4, signalsSent: 0 });
    t.deepEqual(localActivityTypes(failedRun.events ?? []), ['deliverAttemptInline', 'reportAttemptOutcome']);

    // 3. A success after them is reported (the counter is 3): it resets to 0.
    t.deepEqual(await world.immediateDeliveryResults(endpoint.id, await publish(['ok'])), ['delivered']);
    t.is(await world.consecutiveFailures(endpoint.id, 0), 0);
    t.is(await reportsSent(), 4);

    // 4. Back at 0 with nothing uncounted: successes are silent again; then one failure counts 1.
    t.deepEqual(await world.immediateDeliveryResults(endpoint.id, await publish(['ok', 'ok', 'ok'])), Array(3).fill('delivered'));
    t.is(await reportsSent(), 4);
    t.deepEqual(await world.deliveryResults(endpoint.id, await publish(['fail'])), ['failed']);
    t.is(await world.consecutiveFailures(endpoint.id, 1), 1);
    t.like((await admin.call('GET', `/v1/webhooks/${endpoint.id}`)).body, { enabled: true, consecutive_failures: 1 });
    const pending = await world.database.db('webhook_deliveries').where({ endpoint_id: endpoint.id, outcome_pending: true });
    t.is(pending.length, 0, 'every failure was counted and acknowledged');
  } finally {
    await receiver.close();
  }
});

test.serial('an attempt reads its endpoint, delivery and payload in one query, and a repeated record adds no attempt row', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const endpoint = await admin.createEndpoint('http://127.0.0.1:9/hooks');
  const [delivery] = await pendingDeliveries(admin.company.id, 1);
  const deliveries = repositories().webhookDeliveries;

  const context = await deliveries.attemptContext(delivery.deliveryId, endpoint.id, delivery.eventId);
  t.is(context.endpoint?.url, 'http://127.0.0.1:9/hooks');
  t.true(context.endpoint?.enabled);
  t.is(context.endpoint?.deleted_at, null);
  t.is(context.endpoint?.secrets.length, 1);
  t.is(context.deliveryStatus, 'pending');
  t.is(JSON.parse(context.payload!).id, delivery.eventId);
  t.deepEqual(await deliveries.attemptContext(2_000_000_000, 2_000_000_000, randomUUID()), { endpoint: null, deliveryStatus: null, payload: null });

  t.deepEqual(await deliveries.recordAttempt(attempt(delivery.deliveryId, 1, false), false), { status: 'pending', counterUnaffected: false });
  // The activity retried after its record committed: the same attempt again moves nothing twice.
  t.deepEqual(await deliveries.recordAttempt(attempt(delivery.deliveryId, 1, false), false), { status: 'pending', counterUnaffected: false });
  t.deepEqual(await deliveries.recordAttempt(attempt(delivery.deliveryId, 2, false), true), { status: 'failed', counterUnaffected: false });
  t.deepEqual(await deliveries.recordAttempt(attempt(delivery.deliveryId, 2, false), true), { status: 'failed', counterUnaffected: false });
  const row = await world.database.db('webhook_deliveries').where({ id: delivery.deliveryId }).first();
  t.like(row, { status: 'failed', attempts: 2, last_status_code: 500, next_attempt_at: null, outcome_pending: true });
  t.deepEqual(
    (await world.database.db('webhook_attempts').where({ delivery_id: delivery.deliveryId }).orderBy('attempt_number')).map((a: { attempt_number: number }) => a.attempt_number),
    [1, 2],
  );
  t.is((await deliveries.attemptContext(delivery.deliveryId, endpoint.id, delivery.eventId)).deliveryStatus, 'failed');
});
