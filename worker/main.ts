import { DefaultLogger, Runtime, type RuntimeOptions } from '@temporalio/worker';
import { databaseUrlOf, loadConfig, temporalAddressOf, type AppConfig } from '../config';
import { createLogger, temporalRuntimeLogLevel } from '../config/logger';
import { onShutdownSignal, reportReady } from '../config/shutdown';
import { startTracing } from '../config/tracing';
import { startWorker } from './start-worker';

const pinoLevels = { TRACE: 'trace', DEBUG: 'debug', INFO: 'info', WARN: 'warn', ERROR: 'error' } as const;

/** The worker alone; WORKFLOW_BUNDLE_PATH points at a prebuilt bundle (see Dockerfile). */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config, 'worker');
  // We drain the worker ourselves (onShutdownSignal), so the SDK installs no signal handlers.
  // The SDK's lines (workflow and activity logs with their requestId, trace_id and span_id
  // attributes) are JSON lines of the same log.
  const sdkLog = logger.child({ component: 'temporal' });
  Runtime.install({
    shutdownSignals: [],
    logger: new DefaultLogger(temporalRuntimeLogLevel(config), ({ level, message, meta }) => sdkLog[sdkLevel(level, message)](meta ?? {}, message)),
    telemetryOptions: sdkTelemetry(config),
  });
  const tracing = startTracing('worker');
  const worker = await startWorker({
    config,
    databaseUrl: databaseUrlOf(config),
    temporalAddress: temporalAddressOf(config),
    logger,
    workflowBundlePath: process.env.WORKFLOW_BUNDLE_PATH || undefined,
    tracing,
  });
  logger.info({ tracing: Boolean(tracing) }, 'worker running');
  onShutdownSignal(async () => {
    await worker.shutdown();
    await tracing?.shutdown();
  }, (line) => logger.info(line));
  reportReady();
  await worker.done;
}

/**
 * The SDK's levels as pino's, except its warning that a worker has no workflows: the webhook
 * attempts' worker has none by design (worker/create-worker.ts), so that line is news to no one.
 */
function sdkLevel(level: keyof typeof pinoLevels, message: string): (typeof pinoLevels)[keyof typeof pinoLevels] {
  return level === 'WARN' && message.startsWith('No workflows registered') ? 'debug' : pinoLevels[level];
}

/**
 * The SDK's own worker metrics (task slots, poll and schedule-to-start latencies, sticky cache…)
 * served by its Rust core on WORKER_SDK_METRICS_PORT, in Prometheus conventions (`_total`
 * counters, seconds with the unit in the name). Set once per process, before any worker exists.
 */
function sdkTelemetry(config: AppConfig): RuntimeOptions['telemetryOptions'] {
  if (config.metrics.workerSdkPort === 0) return undefined;
  const bindAddress = `${config.http.host}:${config.metrics.workerSdkPort}`;
  return { metrics: { prometheus: { bindAddress, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } } };
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
