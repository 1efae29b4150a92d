import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { costOfHistory, localActivityTypes } from '../../bench/support/temporal-cost';
import { workflowIdsFor } from '../../workflows/messages';
import type { webhookDeliveryWorkflowV3 } from '../../workflows/webhook-delivery';
import { startReceiver } from '../support/receiver';
import { webhookAdmin } from '../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';
import { serviceWorkflows } from '../support/workflow-bundle';
import { createWebhookAttemptWorker } from '../support/webhook-attempt-worker';

// webhookDeliveryWorkflowV3 makes a delivery's first attempt inline, a local activity inside the
// workflow task that decides it (decision 0020), unless the worker already runs its share of
// inline attempts: then the attempt is deferred to an activity task, as retries always are, so
// slow receivers never hold every workflow-task slot. The attempt's semantics are the activity's:
// one request, one attempt row.
// The time-skipping server skips time while a local activity waits on a slow receiver (it sees
// nothing to do), so the slow receiver's test runs on the dev server, which keeps real time.
let world: WebhookWorld;
let realTime: WebhookWorld;
test.before(async () => {
  world = await startWebhookWorld({ TEMPORAL_INLINE_WEBHOOK_ATTEMPTS: '2' });
  realTime = await startWebhookWorld({ TEMPORAL_INLINE_WEBHOOK_ATTEMPTS: '2' }, 'dev-server');
});
test.after.always(async () => {
  await world?.close();
  await realTime?.close();
});

type Env = TestWorkflowEnvironment;
type FakeActivities = Record<string, (...args: never[]) => Promise<unknown>>;

async function runDelivery(env: Env, activities: FakeActivities, name: string) {
  const taskQueue = `webhook-inline-${name}`;
  const workflowId = `webhook-inline-${name}-${Date.now()}`;
  const worker = await Worker.create({ connection: env.nativeConnection, taskQueue, ...serviceWorkflows(), activities });
  // Attempts made as activity tasks go to their own queue and worker (createWorkers).
  const attemptWorker = await createWebhookAttemptWorker(env.nativeConnection, taskQueue, activities.deliverAttempt ?? (async () => {
    throw new Error('this test gives no deliverAttempt');
  }));
  const outcome = await worker.runUntil(
    attemptWorker.runUntil(
      env.client.workflow.execute<typeof webhookDeliveryWorkflowV3>('webhookDeliveryWorkflowV3', {
        args: [{ deliveryId: 1, endpointId: 1, eventId: `evt_${name}` }],
        taskQueue,
        workflowId,
      }),
    ),
  );
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return { outcome, events: history.events ?? [] };
}

test.serial('a healthy delivery is one workflow task: the attempt is a local activity, no activity task', async (t) => {
  const receiver = await startReceiver(() => ({ status: 204 }));
  try {
    const admin = await webhookAdmin(world.database, world.apiUrl);
    const endpoint = await admin.createEndpoint(receiver.url);
    const eventId = await world.publish(admin.company.id, 'document.imported', { id: 1 });
    t.is(await world.deliveryResult(endpoint.id, eventId), 'delivered');
    const history = await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).delivery(endpoint.id, eventId)).fetchHistory();
    t.like(costOfHistory(history.events ?? []), { workflowTasks: 1, activityTasks: 0, localActivities: 1, historyEvents: 6 });
    t.deepEqual(localActivityTypes(history.events ?? []), ['deliverAttemptInline']);
    const [delivery] = await world.database.db('webhook_deliveries').where({ endpoint_id: endpoint.id });
    t.like(delivery, { status: 'delivered', attempts: 1, last_status_code: 204 });
    t.is(receiver.received.length, 1);
  } finally {
    await receiver.close();
  }
});

test.serial('beyond the worker\'s inline share, attempts are deferred to activity tasks; every delivery is made once', async (t) => {
  // Each request waits 1.5 s: the first two attempts hold the worker's two inline places meanwhile.
  const receiver = await startReceiver(() => ({ status: 200, delayMs: 1_500 }));
  try {
    const admin = await webhookAdmin(realTime.database, realTime.apiUrl);
    const endpoints = [];
    for (let i = 0; i < 6; i += 1) endpoints.push(await admin.createEndpoint(receiver.url, ['contact.created']));
    const eventId = await realTime.publish(admin.company.id, 'contact.created', { id: 2 });
    t.deepEqual(await Promise.all(endpoints.map((endpoint) => realTime.deliveryResult(endpoint.id, eventId))), Array(6).fill('delivered'));
    const shapes = [];
    for (const endpoint of endpoints) {
      const history = await realTime.env.client.workflow.getHandle(workflowIdsFor(realTime.taskQueue).delivery(endpoint.id, eventId)).fetchHistory();
      shapes.push(costOfHistory(history.events ?? []).activityTasks === 0 ? 'inline' : 'deferred');
    }
    t.is(shapes.filter((shape) => shape === 'inline').length, 2, `inline share of 2: ${shapes.join(', ')}`);
    t.is(shapes.filter((shape) => shape === 'deferred').length, 4);
    t.is(receiver.received.length, 6, 'one request per delivery');
    const attempts = await realTime.database.db('webhook_attempts').whereIn('delivery_id', realTime.database.db('webhook_deliveries').select('id').whereIn('endpoint_id', endpoints.map((endpoint) => endpoint.id)));
    t.is(attempts.length, 6);
  } finally {
    await receiver.close();
  }
});

test.serial('an inline attempt that fails is recorded as interrupted; the retry is an activity task', async (t) => {
  const lost: { attempt: number; error: string }[] = [];
  const retried: number[] = [];
  const { outcome, events } = await runDelivery(
    world.env,
    {
      async deliverAttemptInline() {
        throw ApplicationFailure.retryable('connection terminated unexpectedly', 'DatabaseError');
      },
      async deliverAttempt(request: { attempt: number }) {
        retried.push(request.attempt);
        return { kind: 'delivered', statusCode: 200, error: null, counterUnaffected: true };
      },
      async recordLostAttempt(request: { attempt: number; error: string }) {
        lost.push({ attempt: request.attempt, error: request.error });
      },
      async reportAttemptOutcome() {},
    },
    'lost',
  );
  t.is(outcome, 'delivered');
  t.deepEqual(lost, [{ attempt: 1, error: 'attempt interrupted: the worker failed while making or recording it' }]);
  t.deepEqual(retried, [2], 'a retry is never inline: its receiver failed before');
  t.deepEqual(localActivityTypes(events), ['deliverAttemptInline', 'recordLostAttempt']);
  t.like(costOfHistory(events), { activityTasks: 1, timers: 1 });
});

test.serial('a deferred attempt is made by the deliverAttempt activity, with the same request', async (t) => {
  const requests: unknown[] = [];
  const { outcome, events } = await runDelivery(
    world.env,
    {
      async deliverAttemptInline() {
        return { kind: 'deferred' };
      },
      async deliverAttempt(request: unknown) {
        requests.push(request);
        return { kind: 'delivered', statusCode: 200, error: null, counterUnaffected: true };
      },
      async reportAttemptOutcome() {},
    },
    'deferred',
  );
  t.is(outcome, 'delivered');
  t.like(requests, [{ deliveryId: 1, endpointId: 1, eventId: 'evt_deferred', attempt: 1, retryDelayMs: 60_000 }]);
  t.like(costOfHistory(events), { localActivities: 1, activityTasks: 1, workflowTasks: 2 });
});

test.serial('an endpoint disabled while an attempt is in flight: the receiver\'s 2xx still delivers it, and attempts agrees with the history', async (t) => {
  const receiver = await startReceiver(() => ({ status: 200, delayMs: 2_000 }));
  try {
    const admin = await webhookAdmin(realTime.database, realTime.apiUrl);
    const endpoint = await admin.createEndpoint(receiver.url, ['contact.created']);
    const eventId = await realTime.startPublish(admin.company.id, 'contact.created', { id: 3 });
    await receiver.waitFor(1); // the attempt is in flight: the receiver holds its answer 2 s
    const disabled = await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: false });
    t.is(disabled.status, 200);
    t.like(await realTime.database.db('webhook_deliveries').where({ endpoint_id: endpoint.id }).first(), { status: 'failed', attempts: 0 }, 'the API ended it first');
    // Its workflow is cancelled with the endpoint's other pending deliveries; the attempt's outcome is still recorded.
    await realTime.deliveryResult(endpoint.id, eventId);
    const delivery = await realTime.database.db('webhook_deliveries').where({ endpoint_id: endpoint.id }).first();
    t.like(delivery, { status: 'delivered', attempts: 1, last_status_code: 200, last_error: null, outcome_pending: false });
    t.is(await realTime.database.db('webhook_attempts').where({ delivery_id: delivery.id }).count('* as n').first().then((row) => Number(row!.n)), 1);
    t.is(receiver.received.length, 1);
  } finally {
    await receiver.close();
  }
});
