import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { workflowIdsFor } from '../../../workflows/messages';
import { startReceiver } from '../../support/receiver';
import { webhookAdmin } from '../../support/webhook-api';
import { startWebhookWorld, type WebhookWorld } from '../../support/webhook-world';

// Records the histories replayed by test/workflows/webhook-replay.test.ts. The committed
// histories were recorded at commit 6e0585c, BEFORE webhook workflows counted failed deliveries
// (patch 'count-failed-deliveries'): they prove that runs started by older code still replay.
// The lean-0-*.binpb histories were recorded at commit acaf74b (count-failed-deliveries, before
// deliveries skipped outcomes that change nothing, docs/decisions/0011-lean-webhook-pipeline.md);
// that code starts no entity for scenario 5 (intermediate failures are not reported), so it has
// no endpoint history. The v2-*.binpb histories were recorded by the commit that added
// webhookDeliveryWorkflowV2 (decision 0018; deliveries only, without the endpoint saves), the
// v3-*.binpb ones by the commit that added webhookDeliveryWorkflowV3 (decision 0020; the same). To record new ones, copy this file to a name ending in .test.ts, prefix
// the saved names, and run it with `npm test -- <file>`.
let world: WebhookWorld;
test.before(async () => {
  world = await startWebhookWorld();
});
test.after.always(async () => world?.close());

async function save(name: string, workflowId: string) {
  const history = await world.env.client.workflow.getHandle(workflowId).fetchHistory();
  await writeFile(path.resolve(__dirname, `${name}.binpb`), temporal.api.history.v1.History.encode(history).finish());
}

test.serial('record', async (t) => {
  const admin = await webhookAdmin(world.database, world.apiUrl);
  const ids = workflowIdsFor(world.taskQueue);

  // 1. five failed attempts, then failed
  const failing = await startReceiver(() => ({ status: 500 }));
  const e1 = await admin.createEndpoint(failing.url);
  const ev1 = await world.publish(admin.company.id, 'document.imported', { id: 1 });
  t.is(await world.deliveryResult(e1.id, ev1), 'failed');
  await save('delivery-failed-after-5-attempts', ids.delivery(e1.id, ev1));
  await save('endpoint-5-failed-attempts', ids.endpoint(e1.id));

  // 2. success on attempt 3
  const third = await startReceiver((_r, index) => ({ status: index < 2 ? 503 : 204 }));
  const e2 = await admin.createEndpoint(third.url);
  const ev2 = await world.publish(admin.company.id, 'contact.created', { id: 2 });
  t.is(await world.deliveryResult(e2.id, ev2), 'delivered');
  await save('delivery-delivered-on-attempt-3', ids.delivery(e2.id, ev2));
  await save('endpoint-2-failures-then-success', ids.endpoint(e2.id));

  // 3. a timed-out first attempt, then delivered
  const slow = await startReceiver((_r, index) => (index === 0 ? { status: 200, delayMs: 12_000 } : { status: 200 }));
  const e3 = await admin.createEndpoint(slow.url);
  const ev3 = await world.publish(admin.company.id, 'dian_event.completed');
  t.is(await world.deliveryResult(e3.id, ev3), 'delivered');
  await save('delivery-timeout-then-delivered', ids.delivery(e3.id, ev3));

  // 4. deactivation after 20 failed attempts across 5 deliveries, re-enable, then delivered
  let healthy = false;
  const flaky = await startReceiver(() => ({ status: healthy ? 200 : 500 }));
  const e4 = await admin.createEndpoint(flaky.url, ['document.imported']);
  const events: string[] = [];
  for (let i = 0; i < 5; i += 1) events.push(await world.publish(admin.company.id, 'document.imported', { n: i }));
  for (const eventId of events) t.is(await world.deliveryResult(e4.id, eventId), 'failed');
  t.is((await admin.call('PATCH', `/v1/webhooks/${e4.id}`, { enabled: true })).status, 200);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  healthy = true;
  const after = await world.publish(admin.company.id, 'document.imported', { n: 'after' });
  t.is(await world.deliveryResult(e4.id, after), 'delivered');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await save('delivery-cancelled-by-deactivation', ids.delivery(e4.id, events[4]));
  await save('endpoint-deactivated-reenabled-delivered', ids.endpoint(e4.id));

  // 5. a delivery still running: two failed attempts, sleeping before the third
  const down = await startReceiver(() => ({ status: 502 }));
  const e5 = await admin.createEndpoint(down.url);
  const ev5 = await world.publish(admin.company.id, 'contact.updated', { id: 5 });
  await down.waitFor(1);
  await world.env.sleep('90 seconds');
  await down.waitFor(2);
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await save('delivery-running-after-2-attempts', ids.delivery(e5.id, ev5));
  await save('endpoint-running-2-failed-attempts', ids.endpoint(e5.id));

  for (const receiver of [failing, third, slow, flaky, down]) await receiver.close();
});
