import { createHash } from 'node:crypto';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { bearer } from '../support/api';
import { upload, waitForImport } from '../support/ingestion';
import { launchNpmStart, npmStartEnvironment, reapNpmStart, waitUntil, type StartEnvironment } from '../support/npm-start';
import { receivedSpans, startOtlpReceiver } from '../support/otlp-receiver';

// `npm start` with OTEL_EXPORTER_OTLP_ENDPOINT at a real OTLP/HTTP receiver on loopback: the API
// and the worker, separate processes, export the spans of one upload in one trace.
let environment: StartEnvironment;
let collector: Awaited<ReturnType<typeof startOtlpReceiver>>;

test.before(async () => {
  collector = await startOtlpReceiver();
  environment = await npmStartEnvironment({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
});
test.after.always(async () => {
  if (environment) await reapNpmStart(environment.dataDir);
  await collector?.close();
});

test('the API and the worker processes export one upload as one trace over OTLP/HTTP', async (t) => {
  t.timeout(300_000);
  const started = await launchNpmStart(environment);
  const key = started.demoKey;
  if (!key) throw new Error(`no demo key in:\n${started.output()}`);
  const [company] = (await (await fetch(`${environment.apiUrl}/v1/companies`, { headers: bearer(key) })).json()) as { id: number }[];
  const xml = demoInvoiceXml('FE-TRACE-1', createHash('sha384').update('trace-1').digest('hex'), '800197268', '900108281');
  const accepted = await upload(environment.apiUrl, key, company!.id, { name: 'FE-TRACE-1.xml', bytes: Buffer.from(xml), type: 'application/xml' });
  t.is(accepted.status, 202);
  t.is((await waitForImport(environment.apiUrl, key, company!.id, accepted.body.id)).status, 'DONE');

  // The workflow's span ends with the workflow (after the file is DONE: DIAN sync, events), then
  // the worker's batch processor exports it within 5 s.
  await waitUntil(() => receivedSpans(collector.bodies).some((span) => span.name === 'RunWorkflow:importFileWorkflowV3'), 90_000, 'the workflow span').catch((error: Error) => {
    t.log(receivedSpans(collector.bodies).map((span) => `${span.service} ${span.name}`));
    throw error;
  });
  started.process.kill('SIGTERM');
  t.deepEqual(await started.exited, { code: 0, signal: null });

  const spans = receivedSpans(collector.bodies);
  const request = spans.find((span) => span.service === 'document-invoicing-api' && span.name === 'POST /v1/companies/:company_id/files');
  t.truthy(request, JSON.stringify(spans.map((span) => [span.service, span.name])));
  const trace = spans.filter((span) => span.traceId === request!.traceId);
  const start = trace.find((span) => span.name === 'StartWorkflow:importFileWorkflowV3');
  t.is(start?.service, 'document-invoicing-api');
  t.is(start?.parentSpanId, request!.spanId);
  const run = trace.find((span) => span.name === 'RunWorkflow:importFileWorkflowV3');
  t.is(run?.service, 'document-invoicing-worker');
  t.is(run?.parentSpanId, start!.spanId);
  t.true(trace.some((span) => span.service === 'document-invoicing-worker' && span.name === 'RunActivity:importAndPublishUploadedFile'));
});
