import { randomUUID } from 'node:crypto';
import test from 'ava';
import { useApiAndWorker } from '../support/api-and-worker';
import { bearer } from '../support/api';
import { ensureSchedules } from '../../worker/schedules';
import { scheduleIds } from '../../workflows/messages';
import { purgeIdempotentRequestsWorkflow } from '../../workflows/purge-idempotent-requests';
import { webhookAdmin } from '../support/webhook-api';

// Answers kept for Idempotency-Key retries live 24 hours (docs/api.md); an hourly schedule drops
// the older ones, also of keys never used again (their answers can carry signing secrets).
const world = useApiAndWorker(test);

test('answers older than 24 hours are purged by the scheduled workflow, and their key then acts anew', async (t) => {
  const admin = await webhookAdmin(world.api.database, world.api.url);
  const db = world.api.database.db;
  const createEndpoint = (idempotencyKey: string) =>
    fetch(`${world.api.url}/v1/companies/${admin.company.id}/webhooks`, {
      method: 'POST',
      headers: { ...bearer(admin.key), 'Content-Type': 'application/json', 'Idempotency-Key': idempotencyKey },
      body: JSON.stringify({ url: 'https://receiver.example.com/hooks', events: [] }),
    });
  const [oldKey, recentKey] = [`old-${randomUUID()}`, `recent-${randomUUID()}`];
  const first = await createEndpoint(oldKey);
  t.is(first.status, 201);
  const firstEndpoint = (await first.json()) as { id: number };
  t.is((await createEndpoint(recentKey)).status, 201);
  await db('idempotent_requests').where({ idempotency_key: oldKey }).update({ created_at: db.raw(`now() - interval '25 hours'`) });

  const result = await world.api.temporal.client.workflow.execute(purgeIdempotentRequestsWorkflow, {
    taskQueue: world.worker.taskQueue,
    workflowId: `purge-${randomUUID()}`,
  });
  t.true(result.answers >= 1);
  t.is((await db('idempotent_requests').where({ idempotency_key: oldKey })).length, 0);
  t.is((await db('idempotent_requests').where({ idempotency_key: recentKey })).length, 1);

  const replayed = await createEndpoint(recentKey);
  t.is(replayed.headers.get('idempotent-replayed'), 'true');
  const reused = await createEndpoint(oldKey);
  t.is(reused.status, 201);
  t.is(reused.headers.get('idempotent-replayed'), null);
  t.not(((await reused.json()) as { id: number }).id, firstEndpoint.id);
});

test('the worker creates the hourly purge schedule of idempotent answers', async (t) => {
  await ensureSchedules(world.api.temporal.client, world.worker.taskQueue);
  const handle = world.api.temporal.client.schedule.getHandle(scheduleIds.purgeIdempotentRequests(world.worker.taskQueue));
  const description = await handle.describe();
  t.is(description.action.type === 'startWorkflow' ? description.action.workflowType : '', 'purgeIdempotentRequestsWorkflow');
  t.is(description.spec.intervals?.[0]?.every, 3_600_000);
  await handle.delete();
});
