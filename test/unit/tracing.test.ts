import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import test from 'ava';
import { parse } from 'yaml';
import { context, propagation, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { workContext } from '../../config/logger';
import { startTracing } from '../../config/tracing';
import { runWithRequestContext } from '../../temporal/request-context';
import { startOtlpReceiver, type OtlpExport } from '../support/otlp-receiver';
import { TRACE_HEADER as LIBRARY_TRACE_HEADER } from '@temporalio/interceptors-opentelemetry/lib/instrumentation';
import { TRACE_HEADER } from '../../workflows/interceptors';

const root = path.resolve(__dirname, '../..');
const child = path.join(root, 'test/support/tracing-child.ts');

function runChild(env: Record<string, string>) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('OTEL_')));
  return promisify(execFile)(process.execPath, ['--import', 'tsx', child], { cwd: root, env: { ...clean, ...env }, timeout: 60_000 });
}

test.serial('without OTEL_EXPORTER_OTLP_ENDPOINT no provider is registered: spans record nothing, nothing is propagated, logs carry only the request id', (t) => {
  t.is(startTracing('api', { env: {} }), undefined);
  const span = trace.getTracer('test').startSpan('nothing');
  t.false(span.isRecording());
  const headers: Record<string, string> = {};
  trace.getTracer('test').startActiveSpan('nothing either', (active) => {
    propagation.inject(context.active(), headers);
    active.end();
  });
  t.deepEqual(headers, {});
  t.deepEqual(runWithRequestContext({ requestId: 'req_untraced_1' }, workContext), { requestId: 'req_untraced_1' });
});

test.serial('a process traces with a provider of its own: service.name per process, OTEL_SERVICE_NAME overrides it; log lines get trace_id and span_id', async (t) => {
  const exporter = new InMemorySpanExporter();
  const tracing = startTracing('intake', { env: { OTEL_SERVICE_NAME: 'intake-eu' }, spanProcessor: new SimpleSpanProcessor(exporter) });
  t.teardown(() => tracing?.shutdown());
  let logContext: Record<string, string> = {};
  trace.getTracer('test').startActiveSpan('traced work', (span) => {
    logContext = runWithRequestContext({ requestId: 'req_traced_1' }, workContext);
    span.end();
  });
  const [span] = exporter.getFinishedSpans();
  t.is(span?.name, 'traced work');
  t.is(span?.resource.attributes['service.name'], 'intake-eu');
  t.deepEqual(logContext, { requestId: 'req_traced_1', trace_id: span!.spanContext().traceId, span_id: span!.spanContext().spanId });
});

test('with OTEL_EXPORTER_OTLP_ENDPOINT a process exports its spans over OTLP/HTTP to that collector', async (t) => {
  const collector = await startOtlpReceiver();
  t.teardown(() => collector.close());
  const { stdout } = await runChild({ OTEL_EXPORTER_OTLP_ENDPOINT: collector.url });
  const printed = JSON.parse(stdout.trim()) as { tracing: boolean; logContext: Record<string, string> };
  t.true(printed.tracing);
  t.is(printed.logContext.requestId, 'req_child_process');
  t.regex(printed.logContext.trace_id ?? '', /^[0-9a-f]{32}$/);
  t.is(collector.bodies.length, 1);
  const [{ contentType, body }] = collector.bodies;
  t.is(contentType, 'application/json');
  const exported = JSON.parse(body) as OtlpExport;
  const [resourceSpans] = exported.resourceSpans;
  t.is(resourceSpans?.resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue, 'document-invoicing-worker');
  const spans = resourceSpans!.scopeSpans.flatMap((scope) => scope.spans);
  t.deepEqual(spans.map((span) => [span.name, span.traceId]), [['child work', printed.logContext.trace_id]]);
});

test('without it the same process exports nothing and its log lines carry no trace ids', async (t) => {
  const { stdout } = await runChild({});
  t.deepEqual(JSON.parse(stdout.trim()), { tracing: false, logContext: { requestId: 'req_child_process' } });
});

test('docker-compose.yml: an optional Jaeger (profile tracing) takes OTLP/HTTP, and api, worker and intake get OTEL_EXPORTER_OTLP_ENDPOINT, empty by default', (t) => {
  // Checked statically: no Docker engine runs here.
  type Service = { image?: string; profiles?: string[]; ports?: string[]; environment?: Record<string, string> };
  const compose = parse(readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as { services: Record<string, Service> };
  const jaeger = compose.services.jaeger!;
  t.regex(jaeger.image ?? '', /^jaegertracing\/all-in-one:\d+\.\d+\.\d+$/);
  t.deepEqual(jaeger.profiles, ['tracing']);
  t.true(jaeger.ports?.includes('4318:4318'));
  t.is(jaeger.environment?.COLLECTOR_OTLP_ENABLED, 'true');
  for (const name of ['api', 'worker', 'intake']) {
    t.is(compose.services[name]!.environment?.OTEL_EXPORTER_OTLP_ENDPOINT, '${OTEL_EXPORTER_OTLP_ENDPOINT:-}', name);
  }
});

test("the workflows' trace header is the OpenTelemetry interceptors' own (their module is loaded only when traced)", (t) => {
  t.is(TRACE_HEADER, LIBRARY_TRACE_HEADER);
});
