import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino, { type Logger } from 'pino';
import { currentRequestId } from '../temporal/request-context';
import type { AppConfig } from './index';

export function createLogger(config: Pick<AppConfig, 'logLevel'>, name: string): Logger {
  return pino({ name, level: config.logLevel, redact: ['req.headers.authorization'], mixin: workContext }, standardOutputWhileItLasts());
}

/**
 * Standard output as pino writes it (synchronously), except that a write that fails ends the
 * logging instead of the process: after a closed terminal (EIO) or a full disk under a
 * redirection, no line can be written any more. pino silences a closed pipe (EPIPE) itself, but
 * passes on every other write error, which then reaches the process safety net's
 * `logger.fatal`, whose synchronous flush (sonic-boom 4) retries the failed line forever: a part
 * of `npm start` whose terminal was closed never finished draining or exited.
 */
export function standardOutputWhileItLasts(fd = 1): pino.DestinationStream {
  const destination = pino.destination({ fd, sync: true });
  destination.on('error', () => {
    destination.write = () => true;
    destination.flushSync = () => undefined;
    destination.flush = () => undefined;
    destination.end = () => undefined;
  });
  return destination;
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
