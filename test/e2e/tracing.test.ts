import test from 'ava';
import { SpanKind } from '@opentelemetry/api';
import { Worker } from '@temporalio/worker';
import { InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { startTracing, type Tracing } from '../../config/tracing';
import { workflowSpanSinks } from '../../worker/create-worker';
import { REQUEST_ID_ATTRIBUTE } from '../../api/middleware/trace-requests';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { fixture, upload } from '../support/ingestion';
import { startReceiver, verifiedEvents } from '../support/receiver';
import { startTestWorker, type TestWorker } from '../support/worker';
import { eventually } from '../support/eventually';
import { serviceWorkflows } from '../support/workflow-bundle';

// One upload, traced end to end in-process (the API and the worker share this process's
// provider): API request → workflow start → workflows and activities → the webhook POST,
// whose receiver gets the trace context.
const exporter = new InMemorySpanExporter();
let tracing: Tracing;
let api: TestApi;
let worker: TestWorker;
let receiver: Awaited<ReturnType<typeof startReceiver>>;

test.before(async () => {
  tracing = startTracing('api', { spanProcessor: new SimpleSpanProcessor(exporter) })!;
  api = await startTestApi({}, { tracing });
  worker = await startTestWorker(api.database, api.config, { tracing });
  receiver = await startReceiver();
});
test.after.always(async () => {
  await worker?.stop();
  await receiver?.close();
  await api?.close();
  await tracing?.shutdown();
});

const spans = () => exporter.getFinishedSpans();
const byId = (spanId: string | undefined) => spans().find((span) => span.spanContext().spanId === spanId);

/** The span and its ancestors up to the root, nearest first; undefined while one is not exported yet. */
function chainOf(span: ReadableSpan): ReadableSpan[] | undefined {
  const chain = [span];
  for (let current = span; current.parentSpanId; ) {
    const parent = byId(current.parentSpanId);
    if (!parent) return undefined;
    chain.push(parent);
    current = parent;
  }
  return chain;
}

test('an upload is one trace: API request, StartWorkflow, RunWorkflow, RunActivity and the webhook POST, whose receiver gets its traceparent', async (t) => {
  const company = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  const { key } = await seedKey(api.database, { scopes: ['documents:write', 'webhooks:manage'], role: 'admin' });
  const endpoint = await fetch(`${api.url}/v1/companies/${company.id}/webhooks`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: [] }),
  });
  const { secret } = (await endpoint.json()) as { secret: string };

  const accepted = await upload(api.url, key, company.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  t.is(accepted.status, 202);
  const requestId = accepted.headers.get('x-request-id');
  const delivery = await eventually(() => receiver.received.find((request) => verifiedEvents([request], secret)[0]?.type === 'document.imported'), 120_000).catch((error: Error) => {
    t.log(receiver.received.length, spans().map((span) => `${span.name} ${span.status.code} ${span.status.message ?? ''} ${JSON.stringify(span.events.map((event) => event.attributes))}`));
    throw error;
  });

  // The API's server span, named by route template, is the root of the upload's trace.
  const server = await eventually(() => spans().find((span) => span.kind === SpanKind.SERVER && span.attributes[REQUEST_ID_ATTRIBUTE] === requestId));
  t.is(server.name, 'POST /v1/companies/:company_id/files');
  t.like(server.attributes, { 'http.request.method': 'POST', 'http.route': '/v1/companies/:company_id/files', 'http.response.status_code': 202 });
  t.is(server.parentSpanId, undefined);
  const traceId = server.spanContext().traceId;

  // The receiver joined that trace: its traceparent names the trace and the POST's client span.
  const [, traceparentTrace, traceparentSpan] = String(delivery.headers.traceparent).split('-');
  t.is(traceparentTrace, traceId);
  const post = await eventually(() => byId(traceparentSpan));
  t.is(post.kind, SpanKind.CLIENT);
  t.is(post.name, 'POST');
  t.like(post.attributes, { 'peer.service': 'webhook', 'http.response.status_code': 200, 'url.full': receiver.url });

  // From the POST up to the API request, every span is exported and of the same trace.
  const chain = await eventually(() => chainOf(post));
  const names = chain.map((span) => span.name);
  t.true(chain.every((span) => span.spanContext().traceId === traceId), names.join(' ← '));
  t.is(chain.at(-1), server, names.join(' ← '));
  t.regex(names[1]!, /^RunActivity:/, names.join(' ← '));
  for (const expected of ['RunWorkflow:webhookDeliveryWorkflowV3', 'RunWorkflow:importFileWorkflowV3', 'StartWorkflow:importFileWorkflowV3']) {
    t.true(names.includes(expected), `${expected} in ${names.join(' ← ')}`);
  }

  // The import itself: StartWorkflow ← API request, RunWorkflow ← StartWorkflow, RunActivity ← StartActivity ← RunWorkflow.
  const named = (name: string) => eventually(() => spans().find((span) => span.name === name && span.spanContext().traceId === traceId));
  const start = await named('StartWorkflow:importFileWorkflowV3');
  t.is(start.parentSpanId, server.spanContext().spanId);
  const run = await named('RunWorkflow:importFileWorkflowV3');
  t.is(run.parentSpanId, start.spanContext().spanId);
  const runActivity = await named('RunActivity:importAndPublishUploadedFile');
  const startActivity = byId(runActivity.parentSpanId);
  t.is(startActivity?.name, 'StartActivity:importAndPublishUploadedFile');
  t.is(startActivity?.parentSpanId, run.spanContext().spanId);
  t.is(run.resource.attributes['service.name'], 'document-invoicing-api');

  // A traced history replays: the tracing interceptors' choice comes from the history itself.
  const workflowId = String(start.attributes.temporalWorkflowId);
  const history = await api.temporal.client.workflow.getHandle(workflowId).fetchHistory();
  await t.notThrowsAsync(Worker.runReplayHistory({ ...serviceWorkflows(), sinks: workflowSpanSinks(undefined) }, history, workflowId));
});
