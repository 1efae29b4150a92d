import test from 'ava';
import { emitEvent } from '../../api/publish-event';
import { createRepositories } from '../../db/repositories';
import { startTestApi, type TestApi, spawnWorkerProcess } from '../support/api';
import { startReceiver } from '../support/receiver';
import { webhookAdmin } from '../support/webhook-api';

// Fault test: the worker process is killed with SIGKILL in the middle of a burst and
// restarted. Every event must still reach every endpoint (receivers deduplicate by
// webhook-id), and no delivery may stay pending once its workflow has ended.
const EVENTS = 30;
const ENDPOINTS = 3;
let api: TestApi;

test.before(async () => {
  api = await startTestApi();
});
test.after.always(async () => api?.close());


test.serial('a worker killed mid-burst loses nothing once restarted', async (t) => {
  t.timeout(240_000);
  const admin = await webhookAdmin(api.database, api.url);
  const receivers = await Promise.all(Array.from({ length: ENDPOINTS }, () => startReceiver(() => ({ status: 200, delayMs: 20 }))));
  let worker = spawnWorkerProcess(api);
  try {
    for (const receiver of receivers) await admin.createEndpoint(receiver.url);
    const temporal = { client: api.temporal.client, taskQueue: api.config.temporal.taskQueue };
    const repositories = createRepositories(api.database.db);
    const eventIds: string[] = [];
    for (let i = 0; i < EVENTS; i += 1) {
      eventIds.push((await emitEvent({ repositories, temporal }, { companyId: admin.company.id, type: 'contact.created', data: { id: i } })).id);
    }

    const total = () => receivers.reduce((sum, receiver) => sum + receiver.received.length, 0);
    const deadline = Date.now() + 60_000;
    while (total() < (EVENTS * ENDPOINTS) / 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
    t.true(total() < EVENTS * ENDPOINTS, 'the kill happens mid-burst');
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
    const receivedBeforeKill = total();

    worker = spawnWorkerProcess(api);
    const everyoneHasEverything = () =>
      receivers.every((receiver) => new Set(receiver.received.map((request) => request.headers['webhook-id'])).size === EVENTS);
    const recoveryDeadline = Date.now() + 200_000;
    while (!everyoneHasEverything() && Date.now() < recoveryDeadline) await new Promise((resolve) => setTimeout(resolve, 250));

    const accepted = EVENTS * ENDPOINTS;
    const completed = receivers.reduce((sum, receiver) => sum + new Set(receiver.received.map((request) => String(request.headers['webhook-id']))).size, 0);
    const line = `worker kill -9: accepted ${accepted} / completed ${completed} / lost ${accepted - completed} (event × endpoint deliveries)`;
    t.log(line);
    console.log(`[faults] ${line}`);
    t.is(completed, accepted, 'lost = 0');
    for (const receiver of receivers) {
      const unique = new Set(receiver.received.map((request) => String(request.headers['webhook-id'])));
      t.deepEqual([...unique].sort(), [...eventIds].sort());
    }
    t.true(total() > receivedBeforeKill);

    // Rows catch up with the receipts: every delivery ends delivered, none stays pending. An
    // attempt the receiver got just before the kill is recorded only by the delivery's next
    // attempt: its activity times out (25 s) and the schedule retries it a minute later.
    let rows: { status: string }[] = [];
    for (let i = 0; i < 400; i += 1) {
      // This burst's rows only: the file's other test shares the API and its database.
      rows = await api.database.db('webhook_deliveries').whereIn('event_id', eventIds).select('status');
      if (rows.length === EVENTS * ENDPOINTS && rows.every((row) => row.status === 'delivered')) break;
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
    t.is(rows.length, EVENTS * ENDPOINTS);
    t.deepEqual([...new Set(rows.map((row) => row.status))], ['delivered']);
  } finally {
    worker.kill('SIGKILL');
    await Promise.all(receivers.map((receiver) => receiver.close()));
  }
});

// The worker killed while its inline first attempt (a local activity in the delivery's workflow
// task) waits on a receiver that holds the request: the attempt is made again by the restarted
// worker, the event reaches the receiver (with its one webhook-id), and the delivery's row ends
// delivered with its attempts recorded, never left pending.
test.serial('a worker killed mid inline attempt: the attempt is made again, delivered, recorded', async (t) => {
  t.timeout(180_000);
  const admin = await webhookAdmin(api.database, api.url);
  // The first request is answered only after 20 s (the worker is dead by then); later ones at once.
  const receiver = await startReceiver((_request, index) => ({ status: 200, delayMs: index === 0 ? 20_000 : 0 }));
  let worker = spawnWorkerProcess(api);
  try {
    await admin.createEndpoint(receiver.url);
    const repositories = createRepositories(api.database.db);
    const temporal = { client: api.temporal.client, taskQueue: api.config.temporal.taskQueue };
    const { id: eventId } = await emitEvent({ repositories, temporal }, { companyId: admin.company.id, type: 'contact.created', data: { id: 1 } });
    await receiver.waitFor(1, 60_000);
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
    const killedAt = Date.now();
    worker = spawnWorkerProcess(api);

    await receiver.waitFor(2, 120_000);
    let row: { status: string; attempts: number } | undefined;
    for (let i = 0; i < 300 && row?.status !== 'delivered'; i += 1) {
      row = await api.database.db('webhook_deliveries').where({ event_id: eventId }).first('status', 'attempts');
      if (row?.status !== 'delivered') await new Promise((resolve) => setTimeout(resolve, 300));
    }
    const line = `worker kill -9 mid inline attempt: delivery ${row?.status} ${Date.now() - killedAt} ms after the kill; receiver requests ${receiver.received.length}`;
    t.log(line);
    console.log(`[faults] ${line}`);
    t.is(row?.status, 'delivered');
    t.deepEqual([...new Set(receiver.received.map((request) => request.headers['webhook-id']))], [eventId], 'the same event, one webhook-id');
    t.is((await api.database.db('webhook_deliveries').where({ event_id: eventId })).length, 1, 'one delivery');
  } finally {
    worker.kill('SIGKILL');
    await receiver.close();
  }
});
