import test from 'ava';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { Knex } from 'knex';
import pino from 'pino';
import { Client, Connection } from '@temporalio/client';
import { createRepositories } from '../../db/repositories';
import { buildApiDependencies } from '../../api/app-context';
import { createHttpServer } from '../../api/http-server';
import { emitEvent } from '../../api/publish-event';
import { createApp } from '../../api/server';
import { recordEventDeliveries } from '../../services/publish-events';
import { deliveryWorkflowId } from '../../services/start-deliveries';
import { webhookDeliveryWorkflowV3 } from '../../workflows/webhook-delivery';
import { recountUncountedFailuresWorkflow } from '../../workflows/recount-uncounted-failures';
import { repairUnstartedDeliveriesWorkflow } from '../../workflows/repair-unstarted-deliveries';
import { workflowIdsFor } from '../../workflows/messages';
import { eventually } from '../support/eventually';
import { jsonClient } from '../support/api';
import { startReceiver } from '../support/receiver';
import { webhookAdmin } from '../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// The API records an event and its deliveries, then starts their workflows; a process that dies
// (or a Temporal that is unreachable) in between leaves pending deliveries with no workflow. The
// repair schedule's workflow starts them, and never a delivery whose workflow already exists.
let world: WebhookWorld;
let unreachable: Connection;
let apiWithoutTemporal: ReturnType<typeof createHttpServer>;
let apiWithoutTemporalUrl: string;
test.before(async () => {
  world = await startWebhookWorld();
  // Nothing listens there, and no retries: every start fails at once, as with Temporal down.
  unreachable = await Connection.lazy({ address: '127.0.0.1:49097', connectTimeout: '1s', interceptors: [] });
  const temporal = { connection: unreachable, client: new Client({ connection: unreachable }) };
  const { app } = createApp(buildApiDependencies(world.config, world.database.db, temporal, pino({ level: 'silent' }), () => apiWithoutTemporalUrl));
  apiWithoutTemporal = createHttpServer(app, pino({ level: 'silent' }));
  await new Promise<void>((resolve) => apiWithoutTemporal.listen(0, '127.0.0.1', resolve));
  apiWithoutTemporalUrl = `http://127.0.0.1:${(apiWithoutTemporal.address() as AddressInfo).port}`;
});
test.after.always(async () => {
  apiWithoutTemporal?.closeAllConnections();
  apiWithoutTemporal?.close();
  await unreachable?.close();
  await world?.close();
});

const repositories = () => createRepositories(world.database.db);
const runRepair = () =>
  world.env.client.workflow.execute(repairUnstartedDeliveriesWorkflow, { workflowId: `repair-${randomUUID()}`, taskQueue: world.taskQueue });
/** Older than the repair's threshold (60 s by default): its publisher has had time to start it. */
const age = (eventIds: string[]) =>
  world.database.db('webhook_deliveries').whereIn('event_id', eventIds).update({ created_at: world.database.db.raw("now() - interval '2 minutes'") });

test.serial('an event whose workflows could not start is accepted, and the repair delivers it once, to its own company', async (t) => {
  const receivers = await Promise.all([startReceiver(), startReceiver()]);
  try {
    const admins = [await webhookAdmin(world.database, world.apiUrl), await webhookAdmin(world.database, world.apiUrl)];
    const endpoints = [await admins[0].createEndpoint(receivers[0].url), await admins[1].createEndpoint(receivers[1].url)];
    const down = { repositories: repositories(), temporal: { client: new Client({ connection: unreachable }), taskQueue: world.taskQueue } };

    // The contract's POST /webhooks/{id}/test: the event is recorded, so it is accepted (202).
    const sent = await jsonClient(apiWithoutTemporalUrl, admins[0].key)('POST', `/v1/webhooks/${endpoints[0].id}/test`);
    t.is(sent.status, 202);
    t.is(sent.body!.type, 'webhook.test');
    const other = await emitEvent(down, { companyId: admins[1].company.id, type: 'contact.created', data: { id: 7 } });
    t.false(other.deliveriesStarted);
    const events = [{ id: sent.body!.event_id as string }, other];
    const rows = await world.database.db('webhook_deliveries').whereIn('event_id', events.map((event) => event.id)).orderBy('id');
    t.deepEqual(rows.map((row) => [row.endpoint_id, row.status, row.attempts]), [[endpoints[0].id, 'pending', 0], [endpoints[1].id, 'pending', 0]]);

    // Younger than the threshold: the publisher may still be starting them.
    t.deepEqual(await runRepair(), { started: 0, alreadyStarted: 0 });
    t.is(receivers[0].received.length + receivers[1].received.length, 0);

    await age(events.map((event) => event.id));
    t.deepEqual(await runRepair(), { started: 2, alreadyStarted: 0 });
    t.deepEqual(await world.deliveryResults(endpoints[0].id, [events[0].id]), ['delivered']);
    t.deepEqual(await world.deliveryResults(endpoints[1].id, [events[1].id]), ['delivered']);

    // Delivered rows are no longer the repair's: a second run starts nothing.
    t.deepEqual(await runRepair(), { started: 0, alreadyStarted: 0 });
    for (const [i, receiver] of receivers.entries()) {
      t.deepEqual(receiver.received.map((request) => request.headers['webhook-id']), [events[i].id]);
      t.is(JSON.parse(receiver.received[0].body).company_id, admins[i].company.id);
    }
  } finally {
    for (const receiver of receivers) await receiver.close();
  }
});

test.serial('a delivery whose workflow exists — running, completed or terminated — is never started again', async (t) => {
  const receiver = await startReceiver();
  try {
    const admin = await webhookAdmin(world.database, world.apiUrl);
    const endpoint = await admin.createEndpoint(receiver.url);
    const up = { repositories: repositories(), temporal: { client: world.env.client, taskQueue: world.taskQueue } };

    // Completed: delivered, then its row put back as if never attempted.
    const completed = await emitEvent(up, { companyId: admin.company.id, type: 'contact.created', data: { id: 1 } });
    t.true(completed.deliveriesStarted);
    t.is(await world.deliveryResult(endpoint.id, completed.id), 'delivered');
    await world.database.db('webhook_deliveries').where({ event_id: completed.id }).update({ status: 'pending', attempts: 0 });

    // Running, then terminated: its workflow started on a queue no worker polls, so it never attempts.
    const input = { event: { id: randomUUID(), companyId: admin.company.id, type: 'contact.created' as const, data: { id: 2 } } };
    const [stuck] = await recordEventDeliveries(repositories(), input);
    const stuckWorkflowId = deliveryWorkflowId(world.taskQueue, stuck);
    const handle = await world.env.client.workflow.start(webhookDeliveryWorkflowV3, { workflowId: stuckWorkflowId, taskQueue: `nobody-${randomUUID()}`, args: [stuck] });
    await age([completed.id, input.event.id]);

    t.deepEqual(await runRepair(), { started: 0, alreadyStarted: 2 });
    await handle.terminate('simulated operator terminate');
    t.deepEqual(await runRepair(), { started: 0, alreadyStarted: 2 });

    const description = await world.env.client.workflow.getHandle(stuckWorkflowId).describe();
    t.is(description.status.name, 'TERMINATED');
    t.is(description.runId, handle.firstExecutionRunId);
    t.deepEqual(receiver.received.map((request) => request.headers['webhook-id']), [completed.id]);
    const stuckRow = await world.database.db('webhook_deliveries').where({ id: stuck.deliveryId }).first();
    t.deepEqual([stuckRow.status, stuckRow.attempts], ['pending', 0]);
  } finally {
    await receiver.close();
  }
});

test.serial('the repair reads its partial index, not every pending delivery', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const endpoint = await admin.createEndpoint('http://127.0.0.1:49098/never-called');
  const { db } = world.database;
  // A busy history: many delivered deliveries and a backlog of retries waiting on a down endpoint.
  await db.raw(`INSERT INTO events (id, company_id, type, data) SELECT gen_random_uuid(), ?, 'contact.created', '{}'::jsonb FROM generate_series(1, 6000)`, [admin.company.id]);
  await db.raw(
    `INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, status, attempts)
     SELECT ?, id, type, CASE WHEN random() < 0.2 THEN 'pending' ELSE 'delivered' END, 3 FROM events WHERE company_id = ?`,
    [endpoint.id, admin.company.id],
  );
  await db.raw('ANALYZE webhook_deliveries');
  // The repository's own query (a knex builder behind its Promise type).
  const { sql, bindings } = (repositories().unfinishedWork.unstartedDeliveries(60, 100) as unknown as Knex.QueryBuilder).toSQL();
  const plan = await db.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[]);
  const text = plan.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n');
  t.regex(text, /Index Scan using webhook_deliveries_unstarted/);
  t.deepEqual(await runRepair(), { started: 0, alreadyStarted: 2 }); // the previous test's two, and none of these
});

// Entity runs before the patch 'settle-before-continue-as-new' could drop an outcome: its failed
// delivery stayed outcome_pending, missing from the count, and every later success signalled the
// entity. The recount schedule reports such failures again, or only marks them counted.
const runRecount = () =>
  world.env.client.workflow.execute(recountUncountedFailuresWorkflow, { workflowId: `recount-${randomUUID()}`, taskQueue: world.taskQueue });

test.serial('the recount reports a failure its entity never counted, once, and only marks counted those whose count no longer matters', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const [uncounted, succeededSince, disabled] = [
    await admin.createEndpoint('http://127.0.0.1:49098/a'),
    await admin.createEndpoint('http://127.0.0.1:49098/b'),
    await admin.createEndpoint('http://127.0.0.1:49098/c'),
  ];
  const { db } = world.database;
  // One event to the three endpoints, recorded without starting its deliveries (ended by hand below).
  const record = async () => {
    const id = randomUUID();
    await recordEventDeliveries(repositories(), { event: { id, companyId: admin.company.id, type: 'contact.created', data: { id: 1 } } });
    return id;
  };
  const rowsOf = (eventId: string) => db('webhook_deliveries').where({ event_id: eventId });
  const dropped = await record();
  await rowsOf(dropped).update({ status: 'failed', attempts: 5, outcome_pending: true, updated_at: db.raw("now() - interval '20 minutes'") });
  const later = await record(); // delivered to the second endpoint after the failure
  await rowsOf(later).where({ endpoint_id: succeededSince.id }).update({ status: 'delivered', attempts: 1, updated_at: db.raw("now() - interval '5 minutes'") });
  await db('webhook_endpoints').where({ id: disabled.id }).update({ enabled: false });
  const recent = await record(); // failed a minute ago: its outcome may still be on its way
  await rowsOf(recent).where({ endpoint_id: uncounted.id }).update({ status: 'failed', attempts: 5, outcome_pending: true, updated_at: db.raw("now() - interval '1 minute'") });

  t.deepEqual(await runRecount(), { reported: 1, cleared: 2 });
  const flagged = async () => (await db('webhook_deliveries').whereIn('event_id', [dropped, recent]).where({ outcome_pending: true }).select('event_id', 'endpoint_id')).map((row) => [row.event_id, row.endpoint_id]);
  const failuresOf = async (endpointId: number) => ((await db('webhook_endpoints').where({ id: endpointId }).first('consecutive_failures')) as { consecutive_failures: number }).consecutive_failures;
  // The entity counted it, mirrored its counter and marked it counted; the young one waits.
  await eventually(async () => ((await flagged()).length === 1 ? true : undefined));
  t.deepEqual(await flagged(), [[recent, uncounted.id]]);
  t.is(await failuresOf(uncounted.id), 1);
  t.is(await failuresOf(succeededSince.id), 0, 'a later success reset the count: the failure is not added');
  for (const endpoint of [succeededSince, disabled]) {
    await t.throwsAsync(world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).endpoint(endpoint.id)).describe(), undefined, 'no entity started');
  }

  // Reported again (as if its flag were never cleared): the entity knows the outcome and does not count it twice.
  await rowsOf(dropped).where({ endpoint_id: uncounted.id }).update({ outcome_pending: true });
  t.deepEqual(await runRecount(), { reported: 1, cleared: 0 });
  await eventually(async () => ((await flagged()).length === 1 ? true : undefined));
  t.is(await failuresOf(uncounted.id), 1);
  t.deepEqual(await runRecount(), { reported: 0, cleared: 0 });

  // Its list reads the partial index of uncounted failures, not the deliveries (6,000 of them since the test above).
  await db.raw('ANALYZE webhook_deliveries');
  const { sql, bindings } = (repositories().unfinishedWork.uncountedFailures(600, 500) as unknown as Knex.QueryBuilder).toSQL();
  const plan = await db.raw(`EXPLAIN ${sql}`, bindings as Knex.RawBinding[]);
  t.regex(plan.rows.map((row: { 'QUERY PLAN': string }) => row['QUERY PLAN']).join('\n'), /webhook_deliveries_outcome_pending/);
});
