import { DefaultLogger, Runtime } from '@temporalio/worker';
import { databaseUrlOf, loadConfig, temporalAddressOf } from '../config';
import { createLogger, temporalRuntimeLogLevel } from '../config/logger';
import { onShutdownSignal, reportReady } from '../config/shutdown';
import { startTracing } from '../config/tracing';
import { startWorker } from './start-worker';

/** The worker alone; WORKFLOW_BUNDLE_PATH points at a prebuilt bundle (see Dockerfile). */
async function main() {
  const config = loadConfig();
  // We drain the worker ourselves (onShutdownSignal), so the SDK installs no signal handlers.
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(temporalRuntimeLogLevel(config)) });
  const logger = createLogger(config, 'worker');
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
