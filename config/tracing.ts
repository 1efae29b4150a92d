import { context, propagation, trace } from '@opentelemetry/api';
import type { ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry/lib/client';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';

/** The processes that trace, each under a service name of its own (OTEL_SERVICE_NAME overrides it). */
export type TracedProcess = 'api' | 'worker' | 'intake';

export type Tracing = {
  /** Where every span of this process ends: the OTLP exporter's batch processor, or a test's. */
  spanProcessor: SpanProcessor;
  /** service.name and version, also stamped on the spans workflows hand to the worker (sinks). */
  resource: Resource;
  /** Flushes the spans not yet exported and unregisters the provider. */
  shutdown(): Promise<void>;
};

const SERVICE_VERSION = '0.1.0';

/**
 * Tracing for one process (docs/operations.md, "Follow one request end to end"): on only when
 * OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) names an OTLP/HTTP
 * collector. Off, no provider is registered: @opentelemetry/api stays the no-op it is by
 * default, so the spans made by the API middleware and the outbound HTTP calls cost nothing.
 *
 * Tests pass `spanProcessor` (an in-memory exporter's) to trace without a collector.
 */
export function startTracing(
  tracedProcess: TracedProcess,
  options: { env?: NodeJS.ProcessEnv; spanProcessor?: SpanProcessor } = {},
): Tracing | undefined {
  const env = options.env ?? process.env;
  if (!options.spanProcessor && !otlpEndpointOf(env)) return undefined;
  const { OTLPTraceExporter, Resource, BatchSpanProcessor, NodeTracerProvider, ATTR_SERVICE_NAME, ATTR_SERVICE_VERSION } = loadTracingSdk();
  const resource = Resource.default().merge(
    new Resource({ [ATTR_SERVICE_NAME]: env.OTEL_SERVICE_NAME || `document-invoicing-${tracedProcess}`, [ATTR_SERVICE_VERSION]: SERVICE_VERSION }),
  );
  // The exporter reads the endpoint, headers and timeout from the OTEL_EXPORTER_OTLP_* variables itself.
  const spanProcessor = options.spanProcessor ?? new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  // Global tracer provider, W3C trace-context propagator, AsyncLocalStorage context manager.
  provider.register();
  return {
    spanProcessor,
    resource,
    async shutdown() {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}

/**
 * The OpenTelemetry SDK and OTLP exporter, required only when tracing is on: they are about
 * 15 MiB of RSS in every process otherwise (docs/performance.md "Memory").
 */
function loadTracingSdk() {
  return {
    ...(require('@opentelemetry/exporter-trace-otlp-http') as typeof import('@opentelemetry/exporter-trace-otlp-http')),
    ...(require('@opentelemetry/resources') as typeof import('@opentelemetry/resources')),
    ...(require('@opentelemetry/sdk-trace-base') as typeof import('@opentelemetry/sdk-trace-base')),
    ...(require('@opentelemetry/sdk-trace-node') as typeof import('@opentelemetry/sdk-trace-node')),
    ...(require('@opentelemetry/semantic-conventions') as typeof import('@opentelemetry/semantic-conventions')),
  };
}

function otlpEndpointOf(env: NodeJS.ProcessEnv): string | undefined {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT || undefined;
}

/**
 * The Temporal client's interceptors: with tracing on, starting or signalling a workflow is a
 * span (StartWorkflow:…, SignalWithStartWorkflow:…) whose context travels in the workflow's
 * headers, so the workflow's spans join the caller's trace.
 */
export function tracingClientInterceptors(tracing: Tracing | undefined): ClientInterceptors | undefined {
  return tracing ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}
