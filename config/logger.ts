import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { currentRequestId } from '../temporal/request-context';
import type { AppConfig } from './index';

export function createLogger(config: Pick<AppConfig, 'logLevel'>, name: string): Logger {
  return pino({ name, level: config.logLevel, redact: ['req.headers.authorization'], mixin: workContext });
}

/**
 * What every log line of a request's work carries without its caller passing it: the request
 * id (the API request, or the activity a workflow of that request runs, temporal/request-context.ts)
 * and, with tracing on (config/tracing.ts), the trace and span the line was written in.
 */
export function workContext(): Record<string, string> {
  const context: Record<string, string> = {};
  const requestId = currentRequestId();
  if (requestId) context.requestId = requestId;
  const span = trace.getActiveSpan()?.spanContext();
  if (span && isSpanContextValid(span)) {
    context.trace_id = span.traceId;
    context.span_id = span.spanId;
  }
  return context;
}

/** The Temporal SDK's own log (bundler output, worker state) is noise below LOG_LEVEL=debug. */
export function temporalRuntimeLogLevel(config: Pick<AppConfig, 'logLevel'>): 'DEBUG' | 'WARN' | 'ERROR' {
  if (config.logLevel === 'debug') return 'DEBUG';
  if (config.logLevel === 'error' || config.logLevel === 'silent') return 'ERROR';
  return 'WARN';
}
