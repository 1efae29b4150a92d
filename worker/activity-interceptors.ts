import { defaultPayloadConverter } from '@temporalio/common';
import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import { OpenTelemetryActivityInboundInterceptor, OpenTelemetryActivityOutboundInterceptor } from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { Tracing } from '../config/tracing';
import { runWithRequestContext } from '../temporal/request-context';
import { REQUEST_ID_HEADER } from '../workflows/interceptors';

/**
 * The request id a workflow passes in its activities' headers (workflows/interceptors.ts): on the
 * activity's log lines, and the request context of the activity, so workflows it starts carry it.
 */
export const requestIdActivityInterceptor: ActivityInterceptorsFactory = () => {
  let requestId: string | undefined;
  return {
    inbound: {
      execute: (input, next) => {
        const header = input.headers[REQUEST_ID_HEADER];
        requestId = header ? (defaultPayloadConverter.fromPayload(header) as string) : undefined;
        return requestId ? runWithRequestContext({ requestId }, () => next(input)) : next(input);
      },
    },
    outbound: {
      getLogAttributes: (input, next) => next(requestId ? { ...input, requestId } : input),
    },
  };
};

/**
 * With tracing on, every activity runs in a RunActivity:<type> span, child of the workflow's
 * StartActivity span (its context comes in the activity's headers), and its log lines carry
 * trace_id and span_id. Off, activities run untouched.
 */
export function activityInterceptors(tracing: Tracing | undefined): ActivityInterceptorsFactory[] {
  if (!tracing) return [requestIdActivityInterceptor];
  const traced: ActivityInterceptorsFactory = (ctx) => ({
    inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
    outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
  });
  return [traced, requestIdActivityInterceptor];
}
