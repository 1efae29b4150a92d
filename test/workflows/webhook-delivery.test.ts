import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { serviceWorkflows } from '../support/workflow-bundle';
import { WorkflowNotFoundError } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import { workflowIdsFor } from '../../workflows/messages';
import { startReceiver } from '../support/receiver';
import { webhookAdmin } from '../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// The retry schedule and attempt rules in virtual time (Java time-skipping server).
let world: WebhookWorld;
let admin: Awaited<ReturnType<typeof webhookAdmin>>;
const finishedWorkflowIds: string[] = [];

test.before(async () => {
  world = await startWebhookWorld();
  admin = await webhookAdmin(world.database, world.apiUrl);
});
test.after.always(async () => world?.close());

async function deliveryRow(endpointId: number, eventId: string) {
  return world.database.db('webhook_deliveries').where({ endpoint_id: endpointId, event_id: eventId }).first();
}

test.serial('five attempts at 0, +1 min, +5 min, +30 min, +2 h, then failed', async (t) => {
  const virtualTimes: number[] = [];
  const receiver = await startReceiver(async () => {
    virtualTimes.push(await world.env.currentTimeMs());
    return { status: 500 };
  });
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const eventId = await world.publish(admin.company.id, 'document.imported', { id: 1 });
    t.is(await world.deliveryResult(endpoint.id, eventId), 'failed');
    finishedWorkflowIds.push(workflowIdsFor(world.taskQueue).delivery(endpoint.id, eventId));
    finishedWorkflowIds.push(workflowIdsFor(world.taskQueue).endpoint(endpoint.id));

    t.is(receiver.received.length, 5);
    const offsets = virtualTimes.map((time) => Math.round((time - virtualTimes[0]) / 1000));
    const expected = [0, 60, 360, 2160, 9360];
    offsets.forEach((offset, index) => t.true(offset >= expected[index] && offset <= expected[index] + 5 * index, `attempt ${index + 1} at ${offset} s`));

    const ids = new Set(receiver.received.map((request) => request.headers['webhook-id']));
    t.deepEqual([...ids], [eventId], 'the same webhook-id on every retry');
    const bodies = new Set(receiver.received.map((request) => request.body));
    t.is(bodies.size, 1, 'the same body bytes on every retry');

    const row = await deliveryRow(endpoint.id, eventId);
    t.like(row, { status: 'failed', attempts: 5, last_status_code: 500, next_attempt_at: null });
    t.regex(row.last_error, /HTTP 500: receiver says 500/);
    const attempts = await world.database.db('webhook_attempts').where({ delivery_id: row.id }).orderBy('attempt_number');
    t.deepEqual(attempts.map((attempt) => attempt.attempt_number), [1, 2, 3, 4, 5]);
  } finally {
    await receiver.close();
  }
});

test.serial('success on attempt 3 stops the retries; the counter stays 0 without a signal', async (t) => {
  const receiver = await startReceiver((_request, index) => ({ status: index < 2 ? 503 : 204 }));
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const eventId = await world.publish(admin.company.id, 'contact.created', { id: 7 });
    t.is(await world.deliveryResult(endpoint.id, eventId), 'delivered');
    finishedWorkflowIds.push(workflowIdsFor(world.taskQueue).delivery(endpoint.id, eventId));
    t.is(receiver.received.length, 3);
    t.like(await deliveryRow(endpoint.id, eventId), { status: 'delivered', attempts: 3, last_status_code: 204, last_error: null, next_attempt_at: null });

    // The failed attempts before it were not outcomes, and the counter was 0 with no failure
    // uncounted: delivered changes nothing, so the entity was not even started.
    t.like(await world.database.db('webhook_endpoints').where({ id: endpoint.id }).first(), { consecutive_failures: 0, enabled: true });
    const entity = world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).endpoint(endpoint.id));
    await t.throwsAsync(entity.describe(), { instanceOf: WorkflowNotFoundError });
  } finally {
    await receiver.close();
  }
});

test.serial('a redirect is a failed attempt and is never followed', async (t) => {
  const elsewhere = await startReceiver();
  const receiver = await startReceiver((_request, index) =>
    index === 0 ? { status: 302, headers: { location: elsewhere.url } } : { status: 200 },
  );
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const eventId = await world.publish(admin.company.id, 'export.succeeded');
    t.is(await world.deliveryResult(endpoint.id, eventId), 'delivered');
    t.is(receiver.received.length, 2);
    t.is(elsewhere.received.length, 0);
    const attempts = await world.database.db('webhook_attempts as a')
      .join('webhook_deliveries as d', 'd.id', 'a.delivery_id')
      .where({ 'd.endpoint_id': endpoint.id })
      .orderBy('a.attempt_number');
    t.is(attempts[0].status_code, 302);
    t.regex(attempts[0].error, /redirects are not followed/);
  } finally {
    await receiver.close();
    await elsewhere.close();
  }
});

test.serial('a receiver that answers after 11 s counts as a failed attempt', async (t) => {
  const receiver = await startReceiver((_request, index) => (index === 0 ? { status: 200, delayMs: 11_000 } : { status: 200 }));
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const eventId = await world.publish(admin.company.id, 'dian_event.completed');
    t.is(await world.deliveryResult(endpoint.id, eventId), 'delivered');
    t.is(receiver.received.length, 2);
    const row = await deliveryRow(endpoint.id, eventId);
    t.is(row.attempts, 2);
    const [first] = await world.database.db('webhook_attempts').where({ delivery_id: row.id, attempt_number: 1 });
    t.is(first.status_code, null);
    t.regex(first.error, /timed out after 10 s/);
    t.true(first.duration_ms >= 9_900 && first.duration_ms < 11_000, `took ${first.duration_ms} ms`);
  } finally {
    await receiver.close();
  }
});

test.serial('after a timed-out attempt, next_attempt_at is when the next attempt really happens', async (t) => {
  const virtualTimes: number[] = [];
  const receiver = await startReceiver(async (_request, index) => {
    virtualTimes.push(await world.env.currentTimeMs());
    return index === 0 ? { status: 200, delayMs: 12_000 } : { status: 200 };
  });
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const eventId = await world.publish(admin.company.id, 'export.failed');
    // Not waiting on a result, the clock does not skip: read the row between the two attempts.
    let row = await deliveryRow(endpoint.id, eventId);
    for (let i = 0; i < 300 && row.attempts < 1; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      row = await deliveryRow(endpoint.id, eventId);
    }
    t.like(row, { status: 'pending', attempts: 1, last_status_code: null });
    const [first] = await world.database.db('webhook_attempts').where({ delivery_id: row.id, attempt_number: 1 });
    const announcedGap = row.next_attempt_at.getTime() - first.started_at.getTime();
    t.true(announcedGap >= 69_500 && announcedGap <= 71_500, `next attempt announced ${announcedGap} ms after the first started (10 s timeout + 1 min)`);

    t.is(await world.deliveryResult(endpoint.id, eventId), 'delivered');
    const actualGap = virtualTimes[1] - virtualTimes[0];
    t.true(Math.abs(actualGap - announcedGap) < 2_000, `announced ${announcedGap} ms, happened ${actualGap} ms after`);
  } finally {
    await receiver.close();
  }
});

test.serial('a 429 or 503 with Retry-After is retried on the contract\'s table, whatever the wait it asks', async (t) => {
  const virtualTimes: number[] = [];
  const receiver = await startReceiver(async (_request, index) => {
    virtualTimes.push(await world.env.currentTimeMs());
    if (index === 0) return { status: 429, headers: { 'retry-after': '1200' } };
    if (index === 1) return { status: 503, headers: { 'retry-after': '5' } };
    return { status: 200 };
  });
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const eventId = await world.publish(admin.company.id, 'export.failed');
    t.is(await world.deliveryResult(endpoint.id, eventId), 'delivered');
    const [first, second, third] = virtualTimes.map((time) => time - virtualTimes[0]!);
    t.is(first, 0);
    t.true(Math.abs(second! - 60_000) < 2_000, `attempt 2 came ${second} ms after the first (the table: 1 min; Retry-After asked 20 min)`);
    t.true(Math.abs(third! - second! - 300_000) < 2_000, `attempt 3 came ${third! - second!} ms after the second (the table: 5 min; Retry-After asked 5 s)`);
    const row = await deliveryRow(endpoint.id, eventId);
    const attempts = await world.database.db('webhook_attempts').where({ delivery_id: row.id }).orderBy('attempt_number');
    t.deepEqual(attempts.map((attempt) => attempt.status_code), [429, 503, 200]);
  } finally {
    await receiver.close();
  }
});

test.serial('Spanish accents, emoji and a body over 100 KB arrive as raw UTF-8 that the official standardwebhooks library verifies', async (t) => {
  const receiver = await startReceiver();
  try {
    const endpoint = await admin.createEndpoint(receiver.url);
    const name = 'Señora Ñandú Peñalosa — Distribuciones Árbol 🦜🇨🇴';
    const lines = Array.from({ length: 2_000 }, (_, index) => ({ index, description: `Café de Nariño ${index} ☕ pequeño año` }));
    const eventId = await world.publish(admin.company.id, 'contact.updated', { id: 9, name, lines });
    t.is(await world.deliveryResult(endpoint.id, eventId), 'delivered');
    const [request] = receiver.received;
    t.true(Buffer.byteLength(request.body, 'utf8') > 100_000, `${Buffer.byteLength(request.body, 'utf8')} bytes`);
    t.is(Number(request.headers['content-length']), Buffer.byteLength(request.body, 'utf8'), 'Content-Length counts bytes');
    t.true(request.body.includes(name), 'raw UTF-8, not \\u escapes');
    t.is(request.headers['content-type'], 'application/json');
    t.is(request.headers['webhook-id'], eventId);
    t.regex(String(request.headers['webhook-timestamp']), /^\d{10}$/);
    t.true(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000) < 30);
    t.regex(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]{43}=$/);
    const headers = { 'webhook-id': eventId, 'webhook-timestamp': String(request.headers['webhook-timestamp']), 'webhook-signature': String(request.headers['webhook-signature']) };
    const verified = new Webhook(endpoint.secret).verify(request.body, headers) as { id: string; data: { name: string; lines: unknown[] } };
    t.like(verified, { id: eventId, data: { name } });
    t.is(verified.data.lines.length, 2_000);
    t.throws(() => new Webhook(endpoint.secret).verify(request.body.replace('Ñandú', 'Nandu'), headers), undefined, 'the bytes are what is signed');
  } finally {
    await receiver.close();
  }
});

test.serial('recorded delivery and entity histories replay deterministically', async (t) => {
  t.true(finishedWorkflowIds.length >= 3);
  const histories = finishedWorkflowIds.map(async (workflowId) => ({
    workflowId,
    history: await world.env.client.workflow.getHandle(workflowId).fetchHistory(),
  }));
  const results = Worker.runReplayHistories(
    serviceWorkflows(),
    (async function* () {
      for (const history of histories) yield await history;
    })(),
  );
  let replayed = 0;
  for await (const result of results) {
    t.is(result.error, undefined, `${result.workflowId}: ${String(result.error)}`);
    replayed += 1;
  }
  t.is(replayed, finishedWorkflowIds.length);
});
