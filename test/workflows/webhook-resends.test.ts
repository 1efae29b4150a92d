import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { startReceiver, type ReceivedRequest } from '../support/receiver';
import { webhookAdmin } from '../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// Resend and recover (docs/webhooks.md): a resend is a new delivery of the same event, in
// virtual time, through the real API, verified with the official standardwebhooks library.
let world: WebhookWorld;
test.before(async () => {
  world = await startWebhookWorld();
});
test.after.always(async () => world?.close());

function verify(secret: string, request: ReceivedRequest) {
  return new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  }) as { id: string; type: string };
}

async function failedDeliveries(admin: Awaited<ReturnType<typeof webhookAdmin>>, endpointId: number, count: number, label: string) {
  const events: string[] = [];
  for (let i = 0; i < count; i += 1) events.push(await world.publish(admin.company.id, 'contact.updated', { label, n: i }));
  for (const eventId of events) if ((await world.deliveryResult(endpointId, eventId)) !== 'failed') throw new Error('expected a failed delivery');
  const rows = await world.database.db('webhook_deliveries').where({ endpoint_id: endpointId }).whereIn('event_id', events).orderBy('id');
  return rows.map((row) => ({ id: row.id as number, eventId: row.event_id as string }));
}

test.serial('retry resends a failed delivery: same webhook-id, fresh timestamp, current secret; the failed one links to it', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  let healthy = false;
  const receiver = await startReceiver(() => ({ status: healthy ? 204 : 500 }));
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const [failed] = await failedDeliveries(admin, endpoint.id, 1, 'retry');
    t.is(receiver.received.length, 5);
    const lastOriginal = receiver.received[4];

    // Every attempt of the failed delivery, with time, status code, duration and error.
    const detail = await admin.call('GET', `/v1/webhooks/${endpoint.id}/deliveries/${failed.id}`);
    t.is(detail.status, 200);
    t.like(detail.body, { id: failed.id, event_id: failed.eventId, status: 'failed', attempts: 5, resend_of: null, resent_as: null });
    t.deepEqual(detail.body!.attempt_history.map((attempt: { attempt: number }) => attempt.attempt), [1, 2, 3, 4, 5]);
    for (const attempt of detail.body!.attempt_history) {
      t.like(attempt, { status_code: 500 });
      t.regex(attempt.error, /HTTP 500/);
      t.true(typeof attempt.duration_ms === 'number' && !Number.isNaN(Date.parse(attempt.started_at)));
    }

    const rotated = await admin.call('POST', `/v1/webhooks/${endpoint.id}/rotate-secret`);
    const currentSecret = rotated.body!.secret as string;
    healthy = true;
    const retried = await admin.call('POST', `/v1/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`);
    t.is(retried.status, 202);
    t.like(retried.body, { event_id: failed.eventId, resend_of: failed.id, status: 'pending' });
    const resendId = retried.body!.id as number;
    // Where the resend's outcome shows (no Location before 2026-11-25).
    t.is(retried.headers.get('location'), `/v1/webhooks/${endpoint.id}/deliveries/${resendId}`);
    t.not(resendId, failed.id);
    t.is(await world.resendResult(endpoint.id, failed.eventId, resendId), 'delivered');

    t.is(receiver.received.length, 6);
    const resent = receiver.received[5];
    t.is(resent.headers['webhook-id'], failed.eventId, 'the same webhook-id: receivers deduplicate on it');
    t.is(resent.body, lastOriginal.body, 'the same body bytes');
    // A fresh timestamp: the send time (virtual hours pass in real seconds here, so compare to the clock).
    t.true(Math.abs(Number(resent.headers['webhook-timestamp']) - resent.receivedAt / 1000) < 5, 'stamped when sent');
    t.true(Number(resent.headers['webhook-timestamp']) >= Number(lastOriginal.headers['webhook-timestamp']));
    t.is(verify(currentSecret, resent).id, failed.eventId, 'signed with the current secret');

    t.like((await admin.call('GET', `/v1/webhooks/${endpoint.id}/deliveries/${failed.id}`)).body, { status: 'failed', resent_as: resendId });
    t.like((await admin.call('GET', `/v1/webhooks/${endpoint.id}/deliveries/${resendId}`)).body, { status: 'delivered', attempts: 1, resend_of: failed.id, last_status_code: 204 });

    // Asking again answers the same resend and sends nothing more.
    const again = await admin.call('POST', `/v1/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`);
    t.is(again.status, 202);
    t.is(again.body!.id, resendId);
    t.is(again.headers.get('location'), retried.headers.get('location'));
    t.is(receiver.received.length, 6);

    // Only a failed delivery can be resent.
    const notFailed = await admin.call('POST', `/v1/webhooks/${endpoint.id}/deliveries/${resendId}/retry`);
    t.is(notFailed.status, 409);
    t.is(notFailed.body!.error.code, 'delivery_not_failed');
    t.is((await admin.call('POST', `/v1/webhooks/${endpoint.id}/deliveries/999999/retry`)).status, 404);
  } finally {
    await receiver.close();
  }
});

test.serial('recover resends every failed delivery since a time, once however often asked; outcomes count', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  let healthy = false;
  const receiver = await startReceiver(() => ({ status: healthy ? 200 : 503 }));
  try {
    const since = new Date(Date.now() - 60_000).toISOString();
    const endpoint = await admin.createEndpoint(receiver.url);
    const failed = await failedDeliveries(admin, endpoint.id, 3, 'recover');
    t.is(await world.consecutiveFailures(endpoint.id, 3), 3, 'three failed deliveries counted');
    healthy = true;
    const good = await world.publish(admin.company.id, 'contact.created', { label: 'good' });
    t.is(await world.deliveryResult(endpoint.id, good), 'delivered');
    const sentBefore = receiver.received.length;

    const first = await admin.call('POST', `/v1/webhooks/${endpoint.id}/recover`, { since });
    t.is(first.status, 202);
    t.like(first.body, { resending: 3 });
    const resends = await world.database.db('webhook_deliveries').where({ endpoint_id: endpoint.id }).whereNotNull('resend_of').orderBy('id');
    t.deepEqual(resends.map((row) => row.resend_of), failed.map((delivery) => delivery.id));
    for (const resend of resends) t.is(await world.resendResult(endpoint.id, resend.event_id, resend.id), 'delivered');

    const second = await admin.call('POST', `/v1/webhooks/${endpoint.id}/recover`, { since });
    t.is(second.status, 202);
    t.like(second.body, { resending: 0 });
    t.is((await world.database.db('webhook_deliveries').where({ endpoint_id: endpoint.id }).whereNotNull('resend_of')).length, 3, 'recovering twice sends once');
    const resent = receiver.received.slice(sentBefore).map((request) => request.headers['webhook-id']);
    t.deepEqual(resent.sort(), failed.map((delivery) => delivery.eventId).sort());
    t.is(await world.consecutiveFailures(endpoint.id, 0), 0);

    // since: required, an ISO timestamp, within the 30-day history.
    t.is((await admin.call('POST', `/v1/webhooks/${endpoint.id}/recover`, {})).status, 400);
    t.is((await admin.call('POST', `/v1/webhooks/${endpoint.id}/recover`, { since: 'yesterday' })).status, 400);
    const tooOld = await admin.call('POST', `/v1/webhooks/${endpoint.id}/recover`, { since: new Date(Date.now() - 31 * 86_400_000).toISOString() });
    t.is(tooOld.status, 400);
    t.is(tooOld.body!.error.param, 'since');
  } finally {
    await receiver.close();
  }
});

test.serial('retry and recover answer 409 while the endpoint is disabled', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const receiver = await startReceiver(() => ({ status: 500 }));
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const [failed] = await failedDeliveries(admin, endpoint.id, 1, 'disabled');
    t.is((await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: false })).status, 200);
    const retry = await admin.call('POST', `/v1/webhooks/${endpoint.id}/deliveries/${failed.id}/retry`);
    t.is(retry.status, 409);
    t.is(retry.body!.error.code, 'endpoint_disabled');
    const recover = await admin.call('POST', `/v1/webhooks/${endpoint.id}/recover`, { since: new Date(Date.now() - 3_600_000).toISOString() });
    t.is(recover.status, 409);
    t.is(recover.body!.error.code, 'endpoint_disabled');
    t.is((await world.database.db('webhook_deliveries').where({ endpoint_id: endpoint.id }).whereNotNull('resend_of')).length, 0);
  } finally {
    await receiver.close();
  }
});

test.serial('the delivery history filters by status, event type and time, with cursors bound to the filters', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const receiver = await startReceiver((request) => ({ status: JSON.parse(request.body).type === 'contact.created' ? 200 : 500 }));
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const created: string[] = [];
    for (let i = 0; i < 3; i += 1) {
      const eventId = await world.publish(admin.company.id, 'contact.created', { n: i });
      t.is(await world.deliveryResult(endpoint.id, eventId), 'delivered');
      created.push(eventId);
    }
    const [failed] = await failedDeliveries(admin, endpoint.id, 1, 'filters');
    const list = (query: string) => admin.call('GET', `/v1/webhooks/${endpoint.id}/deliveries?${query}`);

    const failedOnly = await list('status=failed');
    t.deepEqual(failedOnly.body!.data.map((row: { id: number }) => row.id), [failed.id]);
    const byType = await list('event_type=contact.created&limit=2');
    t.deepEqual(byType.body!.data.map((row: { event_id: string }) => row.event_id), [created[2], created[1]]);
    t.true(byType.body!.has_more);
    const next = await list(`event_type=contact.created&limit=2&cursor=${encodeURIComponent(byType.body!.next_cursor)}`);
    t.deepEqual(next.body!.data.map((row: { event_id: string }) => row.event_id), [created[0]]);
    t.false(next.body!.has_more);
    const otherFilters = await list(`status=failed&limit=2&cursor=${encodeURIComponent(byType.body!.next_cursor)}`);
    t.is(otherFilters.status, 400);
    t.is(otherFilters.body!.error.code, 'invalid_cursor');

    const future = new Date(Date.now() + 3_600_000).toISOString();
    t.deepEqual((await list(`since=${encodeURIComponent(future)}`)).body!.data, []);
    t.is((await list(`since=${encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString())}`)).body!.data.length, 4);
    t.is((await list('status=lost')).status, 400);
    t.is((await list('event_type=nope')).status, 400);
    t.is((await list('since=last-week')).status, 400);
    // A day or a time that does not exist is no timestamp (it used to roll over: 11-31 → 12-01); nor is
    // one without its seconds, which the document's date-time format requires (it was accepted).
    const thisYear = new Date().getUTCFullYear();
    for (const impossible of [`${thisYear}-11-31T00:00:00Z`, `${thisYear}-02-30T00:00:00Z`, `${thisYear}-01-10T24:00:00Z`, `${thisYear}-01-10T10:60:00Z`, `${thisYear + 1}-01-10T10:15Z`]) {
      const refused = await list(`since=${encodeURIComponent(impossible)}`);
      t.is(refused.status, 400, impossible);
      t.like(refused.body!.error, { code: 'invalid_parameter', param: 'since' }, impossible);
      t.regex(refused.body!.error.message, /ISO 8601 timestamp/, impossible);
      t.regex((await admin.call('POST', `/v1/webhooks/${endpoint.id}/recover`, { since: impossible })).body!.error.message, /ISO 8601 timestamp/, impossible);
    }
    t.is((await list('status=failed&status=delivered')).status, 400, 'a repeated filter');
    // A filter sent empty is no value of its enum: refused, as the OpenAPI document says.
    for (const empty of ['status=', 'event_type=', 'since=']) {
      const refused = await list(empty);
      t.is(refused.status, 400, empty);
      t.like(refused.body!.error, { code: 'invalid_parameter', param: empty.slice(0, -1) }, empty);
    }
  } finally {
    await receiver.close();
  }
});
