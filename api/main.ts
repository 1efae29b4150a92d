import { databaseUrlOf, loadConfig, temporalAddressOf } from '../config';
import { createLogger } from '../config/logger';
import { onShutdownSignal, reportReady } from '../config/shutdown';
import { installProcessSafetyNet } from '../config/process-safety';
import { startTracing } from '../config/tracing';
import { startApi } from './start-api';

/** The API alone (its own container; a child of `npm start`, beside the worker and the intake). */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config, 'api');
  installProcessSafetyNet(logger);
  const tracing = startTracing('api');
  const api = await startApi({ config, databaseUrl: databaseUrlOf(config), temporalAddress: temporalAddressOf(config), logger, tracing });
  logger.info({ url: api.url, tracing: Boolean(tracing) }, 'API listening');
  onShutdownSignal(async () => {
    await api.close();
    await tracing?.shutdown();
  }, (line) => logger.info(line));
  reportReady({ url: api.url });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
