import { context, propagation, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_URL_PATH,
  ATTR_URL_SCHEME,
} from '@opentelemetry/semantic-conventions';
import type { Middleware } from 'koa';

const tracer = trace.getTracer('document-invoicing/api');

/** The span attribute carrying the request id (X-Request-Id), to go from a trace to the logs and back. */
export const REQUEST_ID_ATTRIBUTE = 'request.id';

/**
 * One server span per request, named by its route template ("POST /v1/companies/:companyId/files"),
 * active while the request runs so the workflows it starts and the calls it makes are its
 * children. A caller's traceparent is honoured. With tracing off (config/tracing.ts) the API
 * is OpenTelemetry's no-op: the span records nothing.
 */
export function traceRequests(): Middleware {
  return (ctx, next) => {
    const parent = propagation.extract(context.active(), ctx.headers);
    const attributes = { [ATTR_HTTP_REQUEST_METHOD]: ctx.method, [ATTR_URL_PATH]: ctx.path, [ATTR_URL_SCHEME]: ctx.protocol };
    return tracer.startActiveSpan(ctx.method, { kind: SpanKind.SERVER, attributes }, parent, async (span) => {
      try {
        await next();
      } catch (error) {
        // errorHandler answers every error; one escaping it is recorded and passed on.
        span.recordException(error as Error);
        throw error;
      } finally {
        const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
        if (route) {
          span.updateName(`${ctx.method} ${String(route)}`);
          span.setAttribute(ATTR_HTTP_ROUTE, String(route));
        }
        span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, ctx.status);
        if (typeof ctx.state.requestId === 'string') span.setAttribute(REQUEST_ID_ATTRIBUTE, ctx.state.requestId);
        if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
      }
    });
  };
}
