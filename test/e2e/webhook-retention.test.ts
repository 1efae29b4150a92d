import { randomUUID } from 'node:crypto';
import test from 'ava';
import { useApiAndWorker } from '../support/api-and-worker';
import { ensureSchedules } from '../../worker/schedules';
import { scheduleIds } from '../../workflows/messages';
import { purgeWebhookHistoryWorkflow } from '../../workflows/purge-webhook-history';
import { webhookAdmin } from '../support/webhook-api';

// Delivery history: the API shows 30 days; a Temporal schedule purges what is older.
const world = useApiAndWorker(test);

test('deliveries older than 30 days are hidden from the list and purged by the scheduled workflow', async (t) => {
  const admin = await webhookAdmin(world.api.database, world.api.url);
  const endpoint = await admin.createEndpoint('http://127.0.0.1:9/hooks');
  const db = world.api.database.db;
  const insertDelivery = async (ageDays: number) => {
    const eventId = randomUUID();
    await db('events').insert({ id: eventId, company_id: admin.company.id, type: 'contact.created', data: '{}', payload: '{}', created_at: db.raw(`now() - interval '${ageDays} days'`) });
    await db('webhook_deliveries').insert({ endpoint_id: endpoint.id, event_id: eventId, status: 'delivered', attempts: 1, created_at: db.raw(`now() - interval '${ageDays} days'`) });
    return eventId;
  };
  const recent = await insertDelivery(29);
  const old = await insertDelivery(31);

  const listed = await admin.call('GET', `/v1/webhooks/${endpoint.id}/deliveries`);
  t.deepEqual(listed.body!.data.map((delivery: { event_id: string }) => delivery.event_id), [recent]);

  const result = await world.api.temporal.client.workflow.execute(purgeWebhookHistoryWorkflow, {
    taskQueue: world.worker.taskQueue,
    workflowId: `purge-${randomUUID()}`,
  });
  t.deepEqual(result, { deliveries: 1, events: 1 });
  t.is((await db('webhook_deliveries').where({ event_id: old })).length, 0);
  t.is((await db('events').where({ id: old })).length, 0);
  t.is((await db('webhook_deliveries').where({ event_id: recent })).length, 1);
});

test('the worker creates the hourly purge schedule once', async (t) => {
  await ensureSchedules(world.api.temporal.client, world.worker.taskQueue);
  await ensureSchedules(world.api.temporal.client, world.worker.taskQueue);
  const description = await world.api.temporal.client.schedule.getHandle(scheduleIds.purgeWebhookHistory(world.worker.taskQueue)).describe();
  t.is(description.action.type, 'startWorkflow');
  t.is(description.action.type === 'startWorkflow' ? description.action.workflowType : '', 'purgeWebhookHistoryWorkflow');
  t.is(description.spec.intervals?.[0]?.every, 3_600_000);
  await world.api.temporal.client.schedule.getHandle(scheduleIds.purgeWebhookHistory(world.worker.taskQueue)).delete();

  // Its sibling, the repair of deliveries recorded but never started, runs every minute.
  const repair = await world.api.temporal.client.schedule.getHandle(scheduleIds.repairUnstartedDeliveries(world.worker.taskQueue)).describe();
  t.is(repair.action.type === 'startWorkflow' ? repair.action.workflowType : '', 'repairUnstartedDeliveriesWorkflow');
  t.is(repair.spec.intervals?.[0]?.every, 60_000);
  await world.api.temporal.client.schedule.getHandle(scheduleIds.repairUnstartedDeliveries(world.worker.taskQueue)).delete();
});
