import test from 'ava';
import { randomUUID } from 'node:crypto';
import { createRepositories } from '../../db/repositories';
import { publishEvent, recordEventDeliveries } from '../../services/publish-events';
import { startReceiver } from '../support/receiver';
import { webhookAdmin } from '../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// Events are published by an activity (publishEvents) or the API (emitEvent) without a
// workflow of their own: publishing must be safe to repeat, as a retried activity repeats it.
let world: WebhookWorld;
test.before(async () => {
  world = await startWebhookWorld();
});
test.after.always(async () => world?.close());

const deps = () => ({ repositories: createRepositories(world.database.db), temporal: { client: world.env.client, taskQueue: world.taskQueue } });

test.serial('a repeated publish (a retried activity) records and delivers each event once per endpoint', async (t) => {
  const receivers = await Promise.all([startReceiver(), startReceiver()]);
  try {
    const admin = await webhookAdmin(world.database, world.apiUrl);
    const endpoints = [];
    for (const receiver of receivers) endpoints.push(await admin.createEndpoint(receiver.url));
    const input = { event: { id: randomUUID(), companyId: admin.company.id, type: 'contact.created', data: { id: 1 } } };

    // Twice in a row and twice at once, as overlapping activity attempts would.
    const first = await publishEvent(deps(), input);
    const again = await Promise.all([publishEvent(deps(), input), publishEvent(deps(), input)]);
    t.is(first.length, 2);
    for (const repeat of again) t.deepEqual(repeat, first);

    for (const endpoint of endpoints) t.is(await world.deliveryResult(endpoint.id, input.event.id), 'delivered');
    const rows = await world.database.db('webhook_deliveries').where({ event_id: input.event.id });
    t.is(rows.length, 2);
    t.true(rows.every((row) => row.status === 'delivered' && row.attempts === 1));
    t.is(await world.database.db('events').where({ id: input.event.id }).count<{ count: string }[]>('* as count').then((r) => Number(r[0].count)), 1);
    for (const receiver of receivers) t.deepEqual(receiver.received.map((request) => request.headers['webhook-id']), [input.event.id]);
  } finally {
    for (const receiver of receivers) await receiver.close();
  }
});

test.serial('a publish interrupted after recording is finished by its repeat: nothing is lost', async (t) => {
  const receiver = await startReceiver();
  try {
    const admin = await webhookAdmin(world.database, world.apiUrl);
    const endpoint = await admin.createEndpoint(receiver.url);
    const input = { event: { id: randomUUID(), companyId: admin.company.id, type: 'contact.created', data: { id: 2 } } };
    // The first attempt died after recording the event and its pending delivery, before starting anything.
    const recorded = await recordEventDeliveries(deps().repositories, input);
    t.is(recorded.length, 1);
    t.is((await world.database.db('webhook_deliveries').where({ id: recorded[0].deliveryId }).first()).status, 'pending');

    t.deepEqual(await publishEvent(deps(), input), recorded);
    t.is(await world.deliveryResult(endpoint.id, input.event.id), 'delivered');
    t.is(receiver.received.length, 1);
  } finally {
    await receiver.close();
  }
});
