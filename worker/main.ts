import { DefaultLogger, Runtime } from '@temporalio/worker';
import { databaseUrlOf, loadConfig, temporalAddressOf } from '../config';
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
    logger: new DefaultLogger(temporalRuntimeLogLevel(config), ({ level, message, meta }) => sdkLog[pinoLevels[level]](meta ?? {}, message)),
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

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
