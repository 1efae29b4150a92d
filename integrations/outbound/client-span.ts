import { context, propagation, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_FULL,
} from '@opentelemetry/semantic-conventions';

const tracer = trace.getTracer('document-invoicing/outbound-http');

/** Who is called: a client's webhook endpoint, DIAN's SOAP service or an accounting system. */
export type OutboundPeer = 'webhook' | 'dian' | 'accounting';

/** What the call came to: a status code, or the error that prevented one (timeout, refused…). */
export type CallResult = { status: number | null; error?: string | null };

/**
 * Runs one outbound HTTP request in a client span ("POST", kind CLIENT, child of the activity
 * or request that makes it) and gives `send` the headers that carry its context (traceparent),
 * for the peer to join the trace. The URL is recorded without its query string and credentials,
 * which may hold a client's secrets. With tracing off (config/tracing.ts) the span is a no-op
 * and the headers are empty.
 */
export async function withClientSpan<T>(
  request: { method: string; url: URL | string; peer: OutboundPeer; /** A SOAP operation, e.g. GetStatusEvent. */ operation?: string },
  send: (traceHeaders: Record<string, string>) => Promise<T>,
  resultOf: (answer: T) => CallResult,
): Promise<T> {
  const url = new URL(request.url);
  const attributes = {
    [ATTR_HTTP_REQUEST_METHOD]: request.method,
    [ATTR_URL_FULL]: `${url.protocol}//${url.host}${url.pathname}`,
    [ATTR_SERVER_ADDRESS]: url.hostname,
    [ATTR_SERVER_PORT]: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
    'peer.service': request.peer,
    ...(request.operation ? { 'rpc.method': request.operation } : {}),
  };
  return tracer.startActiveSpan(request.method, { kind: SpanKind.CLIENT, attributes }, async (span) => {
    try {
      const traceHeaders: Record<string, string> = {};
      propagation.inject(context.active(), traceHeaders);
      const answer = await send(traceHeaders);
      record(span, resultOf(answer));
      return answer;
    } catch (error) {
      span.recordException(error as Error);
      record(span, { status: null, error: (error as Error).name });
      throw error;
    } finally {
      span.end();
    }
  });
}

function record(span: Span, result: CallResult): void {
  if (result.status !== null) span.setAttribute(ATTR_HTTP_RESPONSE_STATUS_CODE, result.status);
  const failed = result.status === null || result.status >= 400;
  if (!failed) return;
  span.setAttribute(ATTR_ERROR_TYPE, result.status === null ? (result.error?.split(':')[0] || 'network_error') : String(result.status));
  span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? undefined });
}
