import test from 'ava';
import { webhookEndpointWorkflow } from '../../workflows/webhook-endpoint';
import { attemptOutcomeSignal, endpointHealthQuery, workflowIdsFor } from '../../workflows/messages';
import { webhookAdmin } from '../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// The endpoint entity keeps its counter across continue-as-new.
let world: WebhookWorld;
test.before(async () => {
  world = await startWebhookWorld();
});
test.after.always(async () => world?.close());

test('the entity continues as new before its history grows large, keeping its count', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const endpoint = await admin.createEndpoint('http://127.0.0.1:9/hooks');
  const handle = await world.env.client.workflow.start(webhookEndpointWorkflow, {
    workflowId: workflowIdsFor(world.taskQueue).endpoint(endpoint.id),
    taskQueue: world.taskQueue,
    args: [{ endpointId: endpoint.id, historyLimit: 40 }],
  });
  const firstRunId = handle.firstExecutionRunId;
  // Signals and queries go to whichever run is current (a handle bound to no run id).
  const latest = world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).endpoint(endpoint.id));
  for (let attempt = 1; attempt <= 15; attempt += 1) {
    await latest.signal(attemptOutcomeSignal, { deliveryId: 1000 + attempt, attempt: 5, succeeded: false });
    // One signal per workflow task, so every outcome costs history.
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let health = await latest.query(endpointHealthQuery);
  for (let i = 0; i < 100 && health.consecutiveFailures < 15; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    health = await latest.query(endpointHealthQuery);
  }
  t.is(health.consecutiveFailures, 15);
  const description = await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).endpoint(endpoint.id)).describe();
  t.not(description.runId, firstRunId, 'a new run was started by continue-as-new');
  const row = await world.database.db('webhook_endpoints').where({ id: endpoint.id }).first();
  t.is(row.consecutive_failures, 15, 'the counter mirrored to Postgres');
});
