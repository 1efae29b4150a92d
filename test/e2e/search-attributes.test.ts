import test from 'ava';
import { useApiAndWorker } from '../support/api-and-worker';
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { bearer, seedCompany, seedKey } from '../support/api';
import { startReceiver } from '../support/receiver';
import { fixture, upload, waitForImport } from '../support/ingestion';
import { eventually } from '../support/eventually';
import { searchAttributes } from '../../domain/search-attributes';
import { registerSearchAttributes } from '../../temporal/register-search-attributes';

// Operators find work in Temporal UI by attribute: every workflow the service starts carries
// CompanyId (and UploadedFileId, EventType, … where they apply), registered at worker start.
const world = useApiAndWorker(test);

async function list(query: string): Promise<WorkflowExecutionInfo[]> {
  const found: WorkflowExecutionInfo[] = [];
  for await (const execution of world.api.temporal.client.workflow.list({ query })) found.push(execution);
  return found;
}

test('registration is idempotent: a second worker start adds nothing and does not fail', async (t) => {
  t.deepEqual(await registerSearchAttributes(world.api.temporal.client, world.api.config.temporal.namespace), []);
  const listed = await world.api.temporal.client.connection.operatorService.listSearchAttributes({ namespace: world.api.config.temporal.namespace });
  for (const key of Object.values(searchAttributes)) t.true(key.name in (listed.customAttributes ?? {}), key.name);
});

test('list-filtering by CompanyId returns exactly that company\'s workflows, with their attributes and request id', async (t) => {
  const buyer = await seedCompany(world.api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  const other = await seedCompany(world.api.database, 'Otra Empresa S.A.S.', '900373115');
  const { key } = await seedKey(world.api.database, { scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin' });
  // An endpoint, so the document.imported event of the upload starts a delivery workflow.
  const receiver = await startReceiver(() => ({ status: 200 }));
  t.teardown(() => receiver.close());
  const endpoint = await fetch(`${world.api.url}/v1/companies/${buyer.id}/webhooks`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: ['document.imported'] }),
  });
  t.is(endpoint.status, 201);
  const mine = await upload(world.api.url, key, buyer.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  const theirs = await upload(world.api.url, key, other.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  t.is(mine.status, 202);
  t.is(theirs.status, 202);
  await waitForImport(world.api.url, key, buyer.id, mine.body.id);
  await waitForImport(world.api.url, key, other.id, theirs.body.id);

  const queue = world.api.config.temporal.taskQueue;
  const importId = `${queue}/file-import-${mine.body.id}`;
  // Visibility is eventually consistent: wait for the import and the delivery of the event it published.
  const found = await eventually(async () => {
    const executions = await list(`CompanyId = ${buyer.id} AND TaskQueue = '${queue}'`);
    const types = new Set(executions.map((execution) => execution.type));
    return types.has('importFileWorkflowV3') && types.has('webhookDeliveryWorkflowV3') ? executions : undefined;
  });
  for (const execution of found) t.is(execution.typedSearchAttributes.get(searchAttributes.CompanyId), buyer.id, execution.workflowId);
  t.false(found.some((execution) => execution.workflowId === `${queue}/file-import-${theirs.body.id}`));

  const [imported] = await eventually(async () => {
    const executions = await list(`UploadedFileId = ${mine.body.id} AND WorkflowType = 'importFileWorkflowV3' AND TaskQueue = '${queue}'`);
    return executions.length ? executions : undefined;
  });
  t.is(imported!.workflowId, importId);
  t.is(imported!.typedSearchAttributes.get(searchAttributes.CompanyId), buyer.id);
  t.is(imported!.memo?.requestId, mine.headers.get('x-request-id'));

  const events = await eventually(async () => {
    const executions = await list(`CompanyId = ${buyer.id} AND EventType = 'document.imported' AND TaskQueue = '${queue}'`);
    return executions.length ? executions : undefined;
  });
  t.true(events.every((execution) => execution.type === 'webhookDeliveryWorkflowV3'));
  // Work done on behalf of the upload (the delivery of the event its import published) carries the upload's request id.
  t.is(events[0]!.memo?.requestId, mine.headers.get('x-request-id'));

  const total = await world.api.temporal.client.workflow.count(`TaskQueue = '${queue}' AND CompanyId = ${other.id}`);
  t.true(total.count >= 1);
});
