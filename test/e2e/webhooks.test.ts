import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { startTestApi, type TestApi } from '../support/api';
import { webhookAdmin } from '../support/webhook-api';
import { startReceiver, verifiedEvent } from '../support/receiver';
import { startTestWorker, type TestWorker } from '../support/worker';
import { eventually } from '../support/eventually';

// API → event → durable delivery → a real receiver on loopback that verifies with the
// official standardwebhooks library, on the Temporal dev server.
let api: TestApi;
let worker: TestWorker;
let companyId: number;
let call: Awaited<ReturnType<typeof webhookAdmin>>['call'];

test.before(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.database, api.config);
  const admin = await webhookAdmin(api.database, api.url);
  companyId = admin.company.id;
  call = admin.call;
});
test.after.always(async () => {
  await worker?.stop();
  await api?.close();
});


test('webhook.test reaches the receiver signed per Standard Webhooks, and shows in deliveries', async (t) => {
  const receiver = await startReceiver();
  try {
    const created = await call('POST', `/v1/companies/${companyId}/webhooks`, { url: receiver.url, events: [] });
    t.is(created.status, 201, JSON.stringify(created.body));
    t.regex(created.body!.secret, /^whsec_/);
    const endpointId = created.body!.id;

    const sent = await call('POST', `/v1/webhooks/${endpointId}/test`);
    t.is(sent.status, 202);
    await receiver.waitFor(1);

    const [request] = receiver.received;
    // Verified with the official library, and checked against the documented webhook.test body (OpenAPI webhooks).
    const verified = verifiedEvent(request, created.body!.secret) as Record<string, any>;
    t.is(request.headers['content-type'], 'application/json');
    t.is(verified.id, sent.body!.event_id);
    t.is(request.headers['webhook-id'], verified.id);
    t.is(verified.type, 'webhook.test');
    t.is(verified.company_id, companyId);
    t.regex(verified.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/);
    t.deepEqual(Object.keys(verified), ['id', 'type', 'created_at', 'company_id', 'data']);
    t.is(typeof verified.data.message, 'string');

    const deliveries = await eventually(async () => {
      const list = await call('GET', `/v1/webhooks/${endpointId}/deliveries`);
      return list.body!.data[0]?.status === 'delivered' ? list.body! : undefined;
    });
    t.like(deliveries.data[0], { event_id: verified.id, event_type: 'webhook.test', status: 'delivered', attempts: 1, last_status_code: 200, last_error: null });
    t.false(deliveries.has_more);
    t.is(deliveries.next_cursor, null);
  } finally {
    await receiver.close();
  }
});

test('after a rotation, deliveries carry two signatures; each secret verifies', async (t) => {
  const receiver = await startReceiver();
  try {
    const created = await call('POST', `/v1/companies/${companyId}/webhooks`, { url: receiver.url, events: ['webhook.test'] });
    const oldSecret = created.body!.secret as string;
    // An action that takes no parameters refuses one, as any body refuses an unknown field; {} is no parameter.
    const withField = await call('POST', `/v1/webhooks/${created.body!.id}/rotate-secret`, { expire_previous: true });
    t.is(withField.status, 400);
    t.like(withField.body!.error, { code: 'invalid_parameter', param: 'expire_previous' });
    const rotated = await call('POST', `/v1/webhooks/${created.body!.id}/rotate-secret`, {});
    t.is(rotated.status, 200);
    const newSecret = rotated.body!.secret as string;
    t.not(newSecret, oldSecret);
    t.regex(newSecret, /^whsec_/);

    await call('POST', `/v1/webhooks/${created.body!.id}/test`);
    await receiver.waitFor(1);
    const [request] = receiver.received;
    const headers = {
      'webhook-id': String(request.headers['webhook-id']),
      'webhook-timestamp': String(request.headers['webhook-timestamp']),
      'webhook-signature': String(request.headers['webhook-signature']),
    };
    t.is(headers['webhook-signature'].split(' ').length, 2, 'one rotation: the refused request rotated nothing');
    t.notThrows(() => new Webhook(newSecret).verify(request.body, headers));
    t.notThrows(() => new Webhook(oldSecret).verify(request.body, headers));
  } finally {
    await receiver.close();
  }
});
