import { trace } from '@opentelemetry/api';
import { workContext } from '../../config/logger';
import { startTracing } from '../../config/tracing';
import { runWithRequestContext } from '../../temporal/request-context';

// Run by test/unit/tracing.test.ts with OTEL_EXPORTER_OTLP_ENDPOINT (or without): starts the
// worker's tracing as worker/main.ts does, makes one span, prints what a log line written in
// it carries, then shuts tracing down (which exports the span).
async function main() {
  const tracing = startTracing('worker');
  runWithRequestContext({ requestId: 'req_child_process' }, () =>
    trace.getTracer('tracing-child').startActiveSpan('child work', (span) => {
      process.stdout.write(`${JSON.stringify({ tracing: Boolean(tracing), logContext: workContext() })}\n`);
      span.end();
    }),
  );
  await tracing?.shutdown();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
