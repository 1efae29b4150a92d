import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { CancelledFailure, WorkflowFailedError, type WorkflowExecutionInfo } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { jsonClient, seedCompany, seedKey, serviceEnvironment, startTestApi, type TestApi } from '../support/api';
import { fixture, upload, waitForImport } from '../support/ingestion';
import { startReceiver } from '../support/receiver';
import { startTestWorker, type TestWorker } from '../support/worker';
import { eventually } from '../support/eventually';
import { attemptOutcomeSignal, endpointHealthQuery, workflowIdsFor } from '../../workflows/messages';
import { webhookEndpointWorkflow } from '../../workflows/webhook-endpoint';
import { MAX_ATTEMPTS } from '../../domain/webhooks/retry-schedule';
import { signalWithStartWorkflow } from '../../temporal/start-workflow';
import { registerSearchAttributes } from '../../temporal/register-search-attributes';

// The steering actions of docs/operations.md, each once, on the dev server with the real worker,
// asserting what the API shows afterwards; and the runbook's queries, as written there.
const run = promisify(execFile);
const CLI = path.resolve(__dirname, '../../bin/invoicing');
const RUNBOOK = readFileSync(path.resolve(__dirname, '../../docs/operations.md'), 'utf8');

let api: TestApi;
let worker: TestWorker | undefined;
let companyId: number;
let key: string;
let call: ReturnType<typeof jsonClient>;
let ids: ReturnType<typeof workflowIdsFor>;
const receivers: { close(): Promise<void> }[] = [];
/** Workflow ids the runbook's queries must find. */
const seen: { cancelledImport?: string; pendingDelivery?: { endpointId: number; workflowId: string }; invoiceId?: number; terminatedDelivery?: string } = {};

test.before(async () => {
  api = await startTestApi();
  const company = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  companyId = company.id;
  ({ key } = await seedKey(api.database, { scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin' }));
  call = jsonClient(api.url, key);
  ids = workflowIdsFor(api.config.temporal.taskQueue);
  // As a worker did at an earlier start: the first test starts an import before its worker runs.
  await registerSearchAttributes(api.temporal.client, api.config.temporal.namespace);
});
test.after.always(async () => {
  await Promise.all(receivers.map((receiver) => receiver.close()));
  await worker?.stop();
  await api?.close();
});

async function ensureWorker(): Promise<void> {
  worker ??= await startTestWorker(api.database, api.config);
}

/** An endpoint of the company at a loopback receiver answering `status`. */
async function endpointAt(status: number, events: string[]) {
  const receiver = await startReceiver(() => ({ status }));
  receivers.push(receiver);
  const created = await call('POST', `/v1/companies/${companyId}/webhooks`, { url: receiver.url, events });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
  return { receiver, endpointId: created.body!.id as number };
}

/** An endpoint answering `status` and its webhook.test delivery. */
async function endpointWithTestDelivery(status: number) {
  const { receiver, endpointId } = await endpointAt(status, ['webhook.test']);
  const sent = await call('POST', `/v1/webhooks/${endpointId}/test`);
  const eventId = sent.body!.event_id as string;
  return { receiver, endpointId, eventId, workflowId: ids.delivery(endpointId, eventId) };
}

async function deliveries(endpointId: number): Promise<Record<string, any>[]> {
  return (await call('GET', `/v1/webhooks/${endpointId}/deliveries`)).body!.data;
}

/** `temporal workflow reset --type FirstWorkflowTask`: a new run replays up to the first workflow task, then runs on. */
async function resetToFirstWorkflowTask(workflowId: string): Promise<string> {
  const handle = api.temporal.client.workflow.getHandle(workflowId);
  // Its record may be final a moment before the workflow closes; resetting a running workflow
  // would also terminate it.
  await handle.result();
  const { runId } = await handle.describe();
  const history = await handle.fetchHistory();
  const firstTask = history.events!.find((event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)!;
  const reset = await api.temporal.client.workflowService.resetWorkflowExecution({
    namespace: api.config.temporal.namespace,
    workflowExecution: { workflowId, runId },
    workflowTaskFinishEventId: firstTask.eventId,
    reason: 'steering test',
    requestId: randomUUID(),
  });
  return reset.runId!;
}

async function eventsAbout(type: string, recordId: number) {
  return api.database.db('events').where({ company_id: companyId, type }).whereRaw(`data->>'id' = ?`, [String(recordId)]).select('id');
}

async function cli(...args: string[]) {
  const { stdout } = await run(CLI, args, { env: serviceEnvironment(api) });
  return JSON.parse(stdout) as Record<string, number[]>;
}

test.serial('cancel an import: the upload ends ERROR (code cancelled), document.import_failed is published once, and it is not restarted', async (t) => {
  // No worker polls yet: the import is stuck (the case an operator cancels), then a worker comes.
  const uploaded = await upload(api.url, key, companyId, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  t.is(uploaded.status, 202);
  const workflowId = ids.importFile(uploaded.body.id);
  const handle = api.temporal.client.workflow.getHandle(workflowId);
  await handle.cancel();
  await ensureWorker();

  const ended = await t.throwsAsync(handle.result(), { instanceOf: WorkflowFailedError });
  t.true(ended?.cause instanceof CancelledFailure);
  t.is((await handle.describe()).status.name, 'CANCELLED');
  const file = await waitForImport(api.url, key, companyId, uploaded.body.id);
  t.like(file, { status: 'ERROR', error: { code: 'cancelled' } });
  t.deepEqual(file.documents, []);
  const published = await eventually(async () => {
    const events = await eventsAbout('document.import_failed', uploaded.body.id);
    return events.length > 0 ? events : undefined;
  });
  t.is(published.length, 1);
  // ERROR is final: the resume-unfinished-imports schedule (uploads PENDING/PROCESSING) leaves it alone.
  t.deepEqual(await api.database.repositories.uploadedFiles.unfinished(0), []);
  seen.cancelledImport = workflowId;
});

test.serial('cancel a delivery: its row ends failed with the reason, no further attempt', async (t) => {
  await ensureWorker();
  const { endpointId, workflowId, receiver } = await endpointWithTestDelivery(500);
  await eventually(async () => ((await deliveries(endpointId))[0]?.attempts === 1 ? true : undefined));
  const handle = api.temporal.client.workflow.getHandle(workflowId);
  await handle.cancel();
  t.is(await handle.result(), 'failed');

  const [delivery] = await deliveries(endpointId);
  t.like(delivery, { status: 'failed', attempts: 1, next_attempt_at: null });
  t.regex(delivery!.last_error, /cancelled by an operator/);
  t.is(receiver.received.length, 1);
});

test.serial('terminate a delivery: its row stays pending until `invoicing operations reconcile` settles it', async (t) => {
  await ensureWorker();
  const { endpointId, workflowId } = await endpointWithTestDelivery(500);
  await eventually(async () => ((await deliveries(endpointId))[0]?.attempts === 1 ? true : undefined));
  await api.temporal.client.workflow.getHandle(workflowId).terminate('steering test');
  seen.terminatedDelivery = workflowId;
  t.like((await deliveries(endpointId))[0], { status: 'pending', attempts: 1 });

  // A running delivery is left alone by reconcile: this one keeps its retries.
  const running = await endpointWithTestDelivery(500);
  await eventually(async () => ((await deliveries(running.endpointId))[0]?.attempts === 1 ? true : undefined));
  seen.pendingDelivery = { endpointId: running.endpointId, workflowId: running.workflowId };

  const dryRun = await cli('operations', 'reconcile', '--older-than', '0', '--dry-run');
  const [pending] = await deliveries(endpointId);
  t.deepEqual(dryRun.deliveries, [pending!.id]);
  t.is(pending!.status, 'pending');

  const report = await cli('operations', 'reconcile', '--older-than', '0');
  t.deepEqual(report, { deliveries: [pending!.id], exports: [], dian_events: [], dian_imports: [] });
  const [settled] = await deliveries(endpointId);
  t.like(settled, { status: 'failed', attempts: 1, next_attempt_at: null });
  t.regex(settled!.last_error, /ended without an outcome/);
  t.like((await deliveries(running.endpointId))[0], { status: 'pending' });
  t.deepEqual(await cli('operations', 'reconcile', '--older-than', '0'), { deliveries: [], exports: [], dian_events: [], dian_imports: [] });
});

test.serial('reset an import to its first workflow task: the import runs again, nothing is duplicated', async (t) => {
  await ensureWorker();
  const endpoint = await endpointAt(200, ['document.imported']);
  const uploaded = await upload(api.url, key, companyId, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  const before = await waitForImport(api.url, key, companyId, uploaded.body.id);
  t.is(before.status, 'DONE');
  await endpoint.receiver.waitFor(1);
  const workflowId = ids.importFile(uploaded.body.id);

  const newRunId = await resetToFirstWorkflowTask(workflowId);
  t.deepEqual(await api.temporal.client.workflow.getHandle(workflowId, newRunId).result(), { status: 'DONE' });
  // The reset run published document.imported again, under the same id: give a duplicate time to show.
  await new Promise((resolve) => setTimeout(resolve, 3_000));

  const after = await waitForImport(api.url, key, companyId, uploaded.body.id);
  t.deepEqual(after.documents, before.documents);
  t.is((await eventsAbout('document.imported', uploaded.body.id)).length, 1);
  const imported = (await deliveries(endpoint.endpointId)).filter((delivery) => delivery.event_type === 'document.imported');
  t.is(imported.length, 1);
  t.is(endpoint.receiver.received.length, 1);
  seen.invoiceId = before.documents[0].id;
});

test.serial('terminate an export and a DIAN event: reconcile settles them failed (interrupted) with export.failed and dian_event.failed', async (t) => {
  await ensureWorker();
  const invoiceId = seen.invoiceId!;
  t.truthy(invoiceId, 'the import test above ran');
  const { repositories } = api.database;
  const exported = await repositories.exports.insertPending({ companyId, documentId: invoiceId, integration: 'alegra', forced: false });
  const dianEvent = await repositories.dianEvents.insert(companyId, invoiceId, '030', null, 'STE');
  // Started where no worker polls, so they are still running when terminated (reconcile finds
  // workflows by id, whatever their task queue).
  const idle = { taskQueue: `unpolled-${randomUUID()}` };
  const workflows = [
    await api.temporal.client.workflow.start('exportDocumentWorkflowV2', { ...idle, workflowId: ids.exportDocument(exported.id), args: [{ exportId: exported.id }] }),
    await api.temporal.client.workflow.start('dianEventWorkflow', { ...idle, workflowId: ids.dianEvent(dianEvent.id), args: [{ eventId: dianEvent.id }] }),
  ];
  for (const handle of workflows) await handle.terminate('steering test');
  t.like((await call('GET', `/v1/companies/${companyId}/exports/${exported.id}`)).body, { status: 'pending' });

  const report = await cli('operations', 'reconcile', '--older-than', '0');
  t.deepEqual(report, { deliveries: [], exports: [exported.id], dian_events: [dianEvent.id], dian_imports: [] });
  t.like((await call('GET', `/v1/companies/${companyId}/exports/${exported.id}`)).body, { status: 'failed', error: { code: 'interrupted' } });
  const events = (await call('GET', `/v1/companies/${companyId}/invoices/${invoiceId}/dian-events`)).body!.data as Record<string, any>[];
  t.like(events.find((event) => event.id === dianEvent.id), { status: 'failed', error: { code: 'interrupted' } });
  await eventually(async () => ((await eventsAbout('export.failed', exported.id)).length === 1 ? true : undefined));
  const published = await eventually(async () => {
    const rows = await api.database.db('events').where({ company_id: companyId, type: 'dian_event.failed' }).select('data');
    return rows.length ? rows : undefined;
  });
  t.like(published[0].data, { invoice_id: invoiceId, event: '030', succeeded: false, error: { code: 'interrupted' } });
});

test.serial('reset a delivered delivery to its first workflow task: nothing is sent again', async (t) => {
  await ensureWorker();
  const { endpointId, workflowId, receiver } = await endpointWithTestDelivery(200);
  await eventually(async () => ((await deliveries(endpointId))[0]?.status === 'delivered' ? true : undefined));

  const newRunId = await resetToFirstWorkflowTask(workflowId);
  t.is(await api.temporal.client.workflow.getHandle(workflowId, newRunId).result(), 'delivered', 'the re-run finds the delivery delivered: it sends nothing and reports the right outcome');
  const [delivery] = await deliveries(endpointId);
  t.like(delivery, { status: 'delivered', attempts: 1 });
  t.is(receiver.received.length, 1);
  t.is((await api.database.repositories.webhookDeliveries.attemptsOf(delivery!.id)).length, 1);
});

test.serial('the runbook\'s queries, as docs/operations.md writes them, find the work they promise', async (t) => {
  const queue = api.config.temporal.taskQueue;
  const list = async (query: string): Promise<WorkflowExecutionInfo[]> => {
    const found: WorkflowExecutionInfo[] = [];
    for await (const execution of api.temporal.client.workflow.list({ query: `${query} AND TaskQueue='${queue}'` })) found.push(execution);
    return found;
  };
  /** The query as the runbook writes it (example ids), and with this test's ids. */
  const runbook = (written: string, actual: string) => {
    t.true(RUNBOOK.includes(written), `docs/operations.md has ${written}`);
    return list(actual);
  };
  const { cancelledImport, pendingDelivery } = seen;
  t.truthy(cancelledImport && pendingDelivery, 'the steering tests above ran');
  const idsOf = (executions: WorkflowExecutionInfo[]) => executions.map((execution) => execution.workflowId);

  const cancelled = await eventually(async () => {
    const found = await runbook(
      `CompanyId=42 AND WorkflowType='importFileWorkflowV3' AND ExecutionStatus='Canceled'`,
      `CompanyId=${companyId} AND WorkflowType='importFileWorkflowV3' AND ExecutionStatus='Canceled'`,
    );
    return found.length ? found : undefined;
  });
  t.deepEqual(idsOf(cancelled), [cancelledImport]);

  const uploadId = Number(cancelledImport!.split('-').pop());
  t.deepEqual(idsOf(await runbook(`UploadedFileId=123`, `UploadedFileId=${uploadId}`)), [cancelledImport]);

  const pending = await eventually(async () => {
    const found = await runbook(
      `EndpointId='7' AND WorkflowType='webhookDeliveryWorkflowV3' AND ExecutionStatus='Running'`,
      `EndpointId='${pendingDelivery!.endpointId}' AND WorkflowType='webhookDeliveryWorkflowV3' AND ExecutionStatus='Running'`,
    );
    return found.length ? found : undefined;
  });
  t.deepEqual(idsOf(pending), [pendingDelivery!.workflowId]);

  const terminated = await runbook(
    `CompanyId=42 AND ExecutionStatus='Terminated'`,
    `CompanyId=${companyId} AND ExecutionStatus='Terminated'`,
  );
  t.deepEqual(idsOf(terminated), [seen.terminatedDelivery]);

  const hourAgo = new Date(Date.now() - 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const threeHoursAgo = new Date(Date.now() - 3 * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z');
  const thisMorning = await runbook(
    `EventType='webhook.test' AND WorkflowType='webhookDeliveryWorkflowV3' AND StartTime > '2026-11-23T06:00:00Z'`,
    `EventType='webhook.test' AND WorkflowType='webhookDeliveryWorkflowV3' AND StartTime > '${hourAgo}'`,
  );
  t.true(thisMorning.length >= 4, `${thisMorning.length} deliveries`);
  // No DIAN events here: the query is valid and finds none (a syntax error would throw).
  t.deepEqual(
    await runbook(
      `WorkflowType='dianEventWorkflow' AND ExecutionStatus='Running' AND StartTime < '2026-11-23T03:00:00Z'`,
      `WorkflowType='dianEventWorkflow' AND ExecutionStatus='Running' AND StartTime < '${threeHoursAgo}'`,
    ),
    [],
  );
  t.deepEqual(await runbook(`CompanyId=42 AND ExecutionStatus='Failed'`, `CompanyId=${companyId} AND ExecutionStatus='Failed'`), []);
  t.deepEqual(await runbook(`DocumentId=88 AND WorkflowType='dianEventWorkflow'`, `DocumentId=88 AND WorkflowType='dianEventWorkflow'`), []);
  t.deepEqual(await runbook(`Cufe='<cufe>'`, `Cufe='${'0'.repeat(96)}'`), []);
  t.deepEqual(await runbook(`ExportId='15'`, `ExportId='15'`), []);
});

// After the runbook's queries: its terminated and reset runs would be found by them.
test.serial('the endpoint entity: cancel and terminate end it and its next outcome starts a run from 0; a reset replays the outcomes it had', async (t) => {
  await ensureWorker();
  const { endpointId } = await endpointAt(200, ['webhook.test']);
  const entityId = ids.endpoint(endpointId);
  const entity = api.temporal.client.workflow.getHandle(entityId);
  const target = { client: api.temporal.client, taskQueue: api.config.temporal.taskQueue };
  let deliveryId = 900_000;
  // A delivery's final failure, reported as reportAttemptOutcome reports it (signal-with-start).
  const failedDelivery = () =>
    signalWithStartWorkflow(target, webhookEndpointWorkflow, {
      workflowId: entityId,
      subject: { companyId, endpointId },
      args: [{ endpointId }],
      signal: attemptOutcomeSignal,
      signalArgs: [{ deliveryId: (deliveryId += 1), attempt: MAX_ATTEMPTS, succeeded: false }],
    });
  const mirrored = async (expected: number) =>
    eventually(async () => {
      const row = await api.database.db('webhook_endpoints').where({ id: endpointId }).first('consecutive_failures', 'enabled');
      return row.consecutive_failures === expected ? row : undefined;
    });
  const closedAs = (status: string) =>
    eventually(async () => ((await entity.describe()).status.name === status ? true : undefined));

  await failedDelivery();
  await failedDelivery();
  await mirrored(2);
  const firstRun = (await entity.describe()).runId;

  await entity.cancel();
  await closedAs('CANCELLED');
  await failedDelivery();
  t.like(await mirrored(1), { enabled: true }, 'after a cancel the next outcome counts from 0');
  const afterCancel = (await entity.describe()).runId;
  t.not(afterCancel, firstRun);

  await failedDelivery();
  await mirrored(2);
  await entity.terminate('steering test');
  await closedAs('TERMINATED');
  await failedDelivery();
  t.like(await mirrored(1), { enabled: true }, 'after a terminate the next outcome counts from 0');

  await failedDelivery();
  await mirrored(2);
  const running = await entity.describe();
  const history = await entity.fetchHistory();
  const firstTask = history.events!.find((event) => event.eventType === temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)!;
  const reset = await api.temporal.client.workflowService.resetWorkflowExecution({
    namespace: api.config.temporal.namespace,
    workflowExecution: { workflowId: entityId, runId: running.runId },
    workflowTaskFinishEventId: firstTask.eventId,
    reason: 'steering test',
    requestId: randomUUID(),
  });
  const resetRun = api.temporal.client.workflow.getHandle(entityId, reset.runId!);
  const health = await eventually(async () => {
    // Until the new run's first workflow task completes, a query may fail or see an empty state.
    const state = await resetRun.query(endpointHealthQuery).catch(() => undefined);
    return state?.consecutiveFailures === 2 ? state : undefined;
  });
  t.like(health, { consecutiveFailures: 2, enabled: true }, 'the reset run re-applied the outcome signalled after its reset point');
  t.like(await mirrored(2), { enabled: true });
});
