import test from 'ava';
import { WorkflowNotFoundError } from '@temporalio/client';
import { webhookEndpointWorkflow } from '../../workflows/webhook-endpoint';
import { attemptOutcomeSignal, endpointHealthQuery, workflowIdsFor } from '../../workflows/messages';
import { webhookAdmin } from '../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// The endpoint entity keeps its counter, and every outcome, across continue-as-new. On the dev
// server: its only timer is the 1 ms one before continuing (nothing to skip), and the Java
// time-skipping server held queries to the new run for 90 s at a time, which pushed this test
// past ava's timeout.
let world: WebhookWorld;
test.before(async () => {
  world = await startWebhookWorld({}, 'dev-server');
});
test.after.always(async () => world?.close());

test('the entity continues as new before its history grows large, keeping its count and every outcome', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const endpoint = await admin.createEndpoint('http://127.0.0.1:9/hooks');
  const handle = await world.env.client.workflow.start(webhookEndpointWorkflow, {
    workflowId: workflowIdsFor(world.taskQueue).endpoint(endpoint.id),
    taskQueue: world.taskQueue,
    args: [{ endpointId: endpoint.id, historyLimit: 30 }],
  });
  const firstRunId = handle.firstExecutionRunId;
  // Signals and queries go to whichever run is current (a handle bound to no run id).
  const latest = world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).endpoint(endpoint.id));
  const waitForCount = async (count: number, timeoutMs = 10_000) => {
    const deadline = Date.now() + timeoutMs;
    let health = await latest.query(endpointHealthQuery);
    while (health.consecutiveFailures < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      health = await latest.query(endpointHealthQuery);
    }
    return health.consecutiveFailures;
  };
  // A server may complete the old run a moment before the new one exists: a signal in between
  // finds no running workflow and is sent again.
  const signalCurrentRun = async (outcome: { deliveryId: number; attempt: number; succeeded: boolean }) => {
    for (let i = 0; ; i += 1) {
      try {
        return await latest.signal(attemptOutcomeSignal, outcome);
      } catch (error) {
        if (!(error instanceof WorkflowNotFoundError) || i >= 50) throw error;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  let sent = 0;
  const signalNext = () => signalCurrentRun({ deliveryId: 1000 + ++sent, attempt: 5, succeeded: false });

  // One at a time, the next sent as soon as the count moves: the next outcome then often arrives
  // while the run continues as new, where runs before the settle patch dropped one within ~20.
  while (sent < 100) {
    await signalNext();
    t.is(await waitForCount(sent), sent, `outcome ${sent} counted`);
  }
  const runCount = async () => {
    let runs = 0;
    for await (const _ of world.env.client.workflow.list({ query: `WorkflowId = '${handle.workflowId}'` })) runs += 1;
    return runs;
  };
  let runs = await runCount();
  for (let i = 0; i < 50 && runs < 3; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    runs = await runCount();
  }
  t.true(runs >= 3, `continued as new at least twice (${runs} runs)`);

  // A burst, faster than the entity handles it: what arrives while it continues goes to the next run.
  for (let i = 0; i < 60; i += 1) await signalNext();
  t.is(await waitForCount(sent, 30_000), sent, 'every outcome of the burst counted once');
  t.not((await latest.describe()).runId, firstRunId);

  let mirrored = -1;
  for (let i = 0; i < 100 && mirrored !== sent; i += 1) {
    mirrored = (await world.database.db('webhook_endpoints').where({ id: endpoint.id }).first()).consecutive_failures;
    if (mirrored !== sent) await new Promise((resolve) => setTimeout(resolve, 50));
  }
  t.is(mirrored, sent, 'the counter mirrored to Postgres');
});
