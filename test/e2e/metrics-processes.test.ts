import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import nodemailer from 'nodemailer';
import { startMetricsServer, type MetricsServer } from '../../config/metrics';
import { freePort } from '../../scripts/embedded/ports';
import { bearer, seedCompany, seedKey, serviceEnvironment, spawnWorkerProcess, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { fixture, waitForImport } from '../support/ingestion';
import { moved, scrape, type Family } from '../support/prometheus';
import { dashboardMetricNames } from '../support/dashboard';

// The metrics of the real processes: worker/main.ts serves the service's metrics on
// WORKER_METRICS_PORT and the Temporal SDK's own on WORKER_SDK_METRICS_PORT (Runtime telemetry,
// a real port); intake/main.ts serves its SMTP counters on INTAKE_METRICS_PORT. Every metric the
// Grafana dashboard queries exists in these scrapes.
const root = path.resolve(__dirname, '../..');
let api: TestApi;
let apiMetrics: MetricsServer;
let worker: ChildProcess;
let intake: ChildProcess;
const ports = { worker: 0, workerSdk: 0, intake: 0, smtp: 0 };
const url = (port: number) => `http://127.0.0.1:${port}/metrics`;

test.before(async () => {
  api = await startTestApi();
  apiMetrics = (await startMetricsServer({ port: 0, host: '127.0.0.1', listenPort: 0 }))!;
  for (const name of Object.keys(ports) as (keyof typeof ports)[]) ports[name] = await freePort();
  worker = spawnWorkerProcess(api, { WORKER_METRICS_PORT: String(ports.worker), WORKER_SDK_METRICS_PORT: String(ports.workerSdk) });
  intake = spawn(process.execPath, ['--import', 'tsx', path.join(root, 'intake/main.ts')], {
    cwd: root,
    env: serviceEnvironment(api, { INTAKE_METRICS_PORT: String(ports.intake), SMTP_PORT: String(ports.smtp), SMTP_HOST: '127.0.0.1' }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
});
test.after.always(async () => {
  for (const child of [worker, intake]) {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
  await apiMetrics?.close();
  await api?.close();
});

/** A scrape once the process serves one (it starts in the background). */
const whenServing = (port: number) => eventually(() => scrape(url(port)).catch(() => undefined), 120_000);

test.serial('the worker process serves the Temporal SDK metrics (temporal_*) on its own port, next to its service metrics', async (t) => {
  const sdk = await eventually(async () => {
    const families = await whenServing(ports.workerSdk);
    // Slot gauges appear once the worker polls.
    return families.some((family) => family.name.startsWith('temporal_worker_task_slots')) ? families : undefined;
  }, 120_000);
  t.true(sdk.every((family) => family.name.startsWith('temporal_')), 'nothing but the SDK on that port');
  t.true(sdk.some((family) => family.name === 'temporal_worker_task_slots_available'));
  const service = await whenServing(ports.worker);
  t.true(service.some((family) => family.name === 'invoicing_imports_total'));
  t.true(service.some((family) => family.name === 'nodejs_eventloop_lag_p99_seconds'), 'event-loop delay percentiles (monitorEventLoopDelay)');
  t.false(service.some((family) => family.name.startsWith('temporal_')));
});

test.serial('the intake process counts SMTP messages and sessions by outcome on INTAKE_METRICS_PORT', async (t) => {
  const company = await seedCompany(api.database);
  const { key } = await seedKey(api.database, { scopes: ['documents:read'], role: 'admin' });
  const inbox = ((await (await fetch(`${api.url}/v1/companies/${company.id}`, { headers: bearer(key) })).json()) as { inbox_email: string }).inbox_email;
  const before = await whenServing(ports.intake);
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: ports.smtp, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ from: 'facturacion@proveedor.example', to: inbox, subject: 'factura', attachments: [{ filename: 'debitnote.xml', content: fixture('debitnote.xml') }] });
    const refused = await transport.sendMail({ from: 'x@proveedor.example', to: `nobody@${inbox.split('@')[1]}`, subject: 'x', text: 'x' }).catch((error: { responseCode?: number }) => error);
    t.is((refused as { responseCode?: number }).responseCode, 550);
  } finally {
    transport.close();
  }
  const after = await eventually(async () => {
    const families = await scrape(url(ports.intake));
    return moved(before, families, 'invoicing_smtp_sessions_total') >= 2 ? families : undefined;
  });
  t.is(moved(before, after, 'invoicing_smtp_messages_total', { outcome: 'accepted' }), 1);
  t.is(moved(before, after, 'invoicing_smtp_sessions_total', { outcome: 'with_message' }), 1);
  t.is(moved(before, after, 'invoicing_smtp_sessions_total', { outcome: 'without_message' }), 1);
  t.is(moved(before, after, 'invoicing_uploads_total', { type: 'email', outcome: 'accepted' }), 1);
  // The worker process imports it (its SDK metrics then have workflow and activity series).
  const files = (await (await fetch(`${api.url}/v1/companies/${company.id}/files`, { headers: bearer(key) })).json()) as { data: { id: number }[] };
  t.is((await waitForImport(api.url, key, company.id, files.data[0].id)).status, 'DONE');
});

test.serial('every metric the Grafana dashboard queries is exported by the API, the worker, the SDK or the intake', async (t) => {
  // Failures the dashboard shows, for real: an activity attempt failing (an import of a file that
  // does not exist, retried) and a workflow task failing (a workflow type the worker does not know).
  const { client } = api.temporal;
  const taskQueue = api.config.temporal.taskQueue;
  const failing = [
    await client.workflow.start('importFileWorkflowV3', { taskQueue, workflowId: `metrics-missing-file-${randomUUID()}`, args: [{ fileId: 2_000_000_000 }] }),
    await client.workflow.start('noSuchWorkflow', { taskQueue, workflowId: `metrics-unknown-type-${randomUUID()}`, args: [] }),
  ];
  // (and the e-mailed file's import workflow completing, after its events are published).
  const awaited = ['temporal_activity_execution_failed_total', 'temporal_workflow_task_execution_failed_total', 'temporal_workflow_completed_total'];
  await eventually(async () => {
    const names = (await scrape(url(ports.workerSdk))).map((family) => family.name);
    return awaited.every((name) => names.includes(name)) ? true : undefined;
  }, 120_000);
  for (const handle of failing) await handle.terminate('metrics test done');

  const scraped: Family[] = [
    ...(await scrape(apiMetrics.url)),
    ...(await whenServing(ports.worker)),
    ...(await whenServing(ports.workerSdk)),
    ...(await whenServing(ports.intake)),
  ];
  const exported = new Set(scraped.map((family) => family.name));
  const dashboard = JSON.parse(readFileSync(path.join(root, 'deploy/grafana/dashboards/invoicing.json'), 'utf8')) as unknown;
  const queried = dashboardMetricNames(dashboard);
  t.true(queried.length >= 20, `the dashboard queries ${queried.length} metrics`);
  t.deepEqual(queried.filter((name) => !exported.has(name)), []);
});
