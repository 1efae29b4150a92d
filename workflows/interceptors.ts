import { defaultPayloadConverter, type Headers } from '@temporalio/common';
import { workflowInfo, type WorkflowInterceptors } from '@temporalio/workflow';
import type * as OpenTelemetryWorkflow from '@temporalio/interceptors-opentelemetry/lib/workflow';

/**
 * The header a traced start carries (`TRACE_HEADER` of @temporalio/interceptors-opentelemetry,
 * whose module is not imported here: see tracingInterceptors; a unit test keeps them equal).
 */
export const TRACE_HEADER = '_tracer-data';

/** The header carrying the request id from a workflow to its activities and children. */
export const REQUEST_ID_HEADER = 'request-id';

function withRequestId(headers: Headers): Headers {
  const requestId = workflowInfo().memo?.requestId;
  if (typeof requestId !== 'string' || headers[REQUEST_ID_HEADER]) return headers;
  return { ...headers, [REQUEST_ID_HEADER]: defaultPayloadConverter.toPayload(requestId) };
}

/**
 * Workflow interceptors (registered with the bundle, see worker/create-worker.ts): the request id
 * kept in the workflow's memo goes to every activity as a header (the worker's activity
 * interceptor puts it in the activity's logs and in the memo of the workflows it starts) and to
 * every child's memo.
 */
export const requestIdInterceptors = (): WorkflowInterceptors => ({
  outbound: [
    {
      scheduleActivity: (input, next) => next({ ...input, headers: withRequestId(input.headers) }),
      scheduleLocalActivity: (input, next) => next({ ...input, headers: withRequestId(input.headers) }),
      startChildWorkflowExecution: (input, next) => {
        const requestId = workflowInfo().memo?.requestId;
        if (typeof requestId !== 'string') return next(input);
        return next({ ...input, options: { ...input.options, memo: { requestId, ...input.options.memo } } });
      },
      getLogAttributes: (input, next) => {
        const requestId = workflowInfo().memo?.requestId;
        return next(typeof requestId === 'string' ? { ...input, requestId } : input);
      },
    },
  ],
});

/**
 * OpenTelemetry in the sandbox (@temporalio/interceptors-opentelemetry), for the workflows whose
 * start carried a trace context, that is whose starter traced (config/tracing.ts): RunWorkflow,
 * HandleSignal, StartActivity, StartChildWorkflow… spans, handed to the worker through the
 * `exporter` sink (worker/create-worker.ts), and the context passed on in activities' headers.
 * The rest (tracing off, schedules) run without a tracer: no span work in the sandbox, and a
 * history recorded before tracing replays exactly as it was recorded. Whether a workflow is
 * traced comes from its start's headers, which are in its history, so the choice is deterministic.
 *
 * The OpenTelemetry modules are required by the first traced call, not imported: every workflow
 * evaluates the modules it requires afresh (the SDK gives each one its own module cache), and the
 * OpenTelemetry SDK's module graph cost about 3.5 ms of worker CPU per workflow at module scope,
 * most of a webhook delivery's sandbox time, with tracing off (docs/performance.md).
 */
export const tracingInterceptors = (): WorkflowInterceptors => {
  let traced = false;
  type Tracer = {
    inbound: OpenTelemetryWorkflow.OpenTelemetryInboundInterceptor;
    outbound: OpenTelemetryWorkflow.OpenTelemetryOutboundInterceptor;
    internals: OpenTelemetryWorkflow.OpenTelemetryInternalsInterceptor;
  };
  let otel: Tracer | undefined;
  const tracer = (): Tracer => {
    if (otel) return otel;
    // A require, not an import: loaded only when traced (see above).
    const library = require('@temporalio/interceptors-opentelemetry/lib/workflow') as typeof OpenTelemetryWorkflow;
    otel = {
      inbound: new library.OpenTelemetryInboundInterceptor(),
      outbound: new library.OpenTelemetryOutboundInterceptor(),
      internals: new library.OpenTelemetryInternalsInterceptor(),
    };
    return otel;
  };
  return {
    inbound: [
      {
        execute: (input, next) => {
          traced = input.headers[TRACE_HEADER] !== undefined;
          return traced ? tracer().inbound.execute(input, next) : next(input);
        },
        handleSignal: (input, next) => (traced ? tracer().inbound.handleSignal(input, next) : next(input)),
        handleUpdate: (input, next) => (traced ? tracer().inbound.handleUpdate(input, next) : next(input)),
        validateUpdate: (input, next) => (traced ? tracer().inbound.validateUpdate(input, next) : next(input)),
        handleQuery: (input, next) => (traced ? tracer().inbound.handleQuery(input, next) : next(input)),
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => (traced ? tracer().outbound.scheduleActivity(input, next) : next(input)),
        scheduleLocalActivity: (input, next) => (traced ? tracer().outbound.scheduleLocalActivity(input, next) : next(input)),
        startChildWorkflowExecution: (input, next) => (traced ? tracer().outbound.startChildWorkflowExecution(input, next) : next(input)),
        continueAsNew: (input, next) => (traced ? tracer().outbound.continueAsNew(input, next) : next(input)),
        signalWorkflow: (input, next) => (traced ? tracer().outbound.signalWorkflow(input, next) : next(input)),
        getLogAttributes: (input, next) => (traced ? tracer().outbound.getLogAttributes(input, next) : next(input)),
      },
    ],
    internals: [{ dispose: (input, next) => (otel ? otel.internals.dispose(input, next) : next(input)) }],
  };
};
