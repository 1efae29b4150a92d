import test from 'ava';
import { endpointHealthQuery, workflowIdsFor } from '../../workflows/messages';
import { startReceiver } from '../support/receiver';
import { webhookAdmin } from '../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// Automatic deactivation and re-enabling (spec: Webhook endpoint states, Automatic deactivation),
// in virtual time, through the real API.
let world: WebhookWorld;

test.before(async () => {
  world = await startWebhookWorld();
});
test.after.always(async () => world?.close());

test.serial('20 consecutive failures across deliveries disable the endpoint; re-enabling resets it; nothing is resent', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  let healthy = false;
  const receiver = await startReceiver(() => ({ status: healthy ? 200 : 500 }));
  try {
    const endpoint = await admin.createEndpoint(receiver.url, ['document.imported']);
    const events: string[] = [];
    for (let i = 0; i < 5; i += 1) events.push(await world.publish(admin.company.id, 'document.imported', { n: i }));
    // One result wait at a time: the test server's time-skipping lock is not reentrant.
    const results: string[] = [];
    for (const eventId of events) results.push(await world.deliveryResult(endpoint.id, eventId));
    t.deepEqual(results, ['failed', 'failed', 'failed', 'failed', 'failed']);

    // Four rounds of five attempts make 20 failures; the fifth round is never sent.
    t.is(receiver.received.length, 20);
    const stored = await admin.call('GET', `/v1/webhooks/${endpoint.id}`);
    t.like(stored.body, { enabled: false, consecutive_failures: 20 });
    const deliveries = await admin.call('GET', `/v1/webhooks/${endpoint.id}/deliveries?limit=10`);
    t.is(deliveries.body!.data.length, 5);
    for (const delivery of deliveries.body!.data) {
      t.like(delivery, { status: 'failed', attempts: 4, next_attempt_at: null });
      t.regex(delivery.last_error, /endpoint disabled after 20 consecutive failures/);
    }

    // While disabled: no new deliveries, and no test events.
    const whileDisabled = await world.publish(admin.company.id, 'document.imported', { n: 'while disabled' });
    t.is((await world.database.db('webhook_deliveries').where({ event_id: whileDisabled })).length, 0);
    const refusedTest = await admin.call('POST', `/v1/webhooks/${endpoint.id}/test`);
    t.is(refusedTest.status, 409);
    t.is(refusedTest.body!.error.code, 'endpoint_disabled');

    // PATCH enabled: true re-enables and resets the counter, in the API and in the entity.
    const reenabled = await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: true });
    t.is(reenabled.status, 200);
    t.like(reenabled.body, { enabled: true, consecutive_failures: 0 });
    const entity = world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).endpoint(endpoint.id));
    let health = await entity.query(endpointHealthQuery);
    for (let i = 0; i < 50 && health.consecutiveFailures !== 0; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      health = await entity.query(endpointHealthQuery);
    }
    t.like(health, { consecutiveFailures: 0, enabled: true });

    healthy = true;
    const afterwards = await world.publish(admin.company.id, 'document.imported', { n: 'after' });
    t.is(await world.deliveryResult(endpoint.id, afterwards), 'delivered');
    const deliveredIds = receiver.received.slice(20).map((request) => request.headers['webhook-id']);
    t.deepEqual(deliveredIds, [afterwards], 'the event from the disabled period was not resent');
    t.like((await admin.call('GET', `/v1/webhooks/${endpoint.id}`)).body, { enabled: true, consecutive_failures: 0 });
  } finally {
    await receiver.close();
  }
});

test.serial('a delivery whose endpoint was deleted ends failed without sending', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const receiver = await startReceiver(() => ({ status: 500 }));
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const eventId = await world.publish(admin.company.id, 'contact.updated', { id: 3 });
    await receiver.waitFor(1);
    t.is((await admin.call('DELETE', `/v1/webhooks/${endpoint.id}`)).status, 204);
    t.is(await world.deliveryResult(endpoint.id, eventId), 'failed');
    t.is(receiver.received.length, 1);
    const row = await world.database.db('webhook_deliveries').where({ endpoint_id: endpoint.id, event_id: eventId }).first();
    t.like(row, { status: 'failed', attempts: 1 });
    t.regex(row.last_error, /endpoint deleted/);
    t.is((await admin.call('GET', `/v1/webhooks/${endpoint.id}`)).status, 404);
  } finally {
    await receiver.close();
  }
});
