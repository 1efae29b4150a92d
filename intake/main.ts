import { databaseUrlOf, loadConfig, temporalAddressOf } from '../config';
import { createLogger } from '../config/logger';
import { onShutdownSignal, reportReady } from '../config/shutdown';
import { installProcessSafetyNet } from '../config/process-safety';
import { startTracing } from '../config/tracing';
import { startIntake } from './start-intake';

/** The SMTP intake alone (`npm run intake`; its own container; a child of `npm start`). */
async function main() {
  const config = loadConfig();
  const logger = createLogger(config, 'intake');
  installProcessSafetyNet(logger);
  if (config.email.port === 0) throw new Error('SMTP_PORT is 0: the e-mail intake is off, nothing to run');
  const tracing = startTracing('intake');
  const intake = await startIntake({ config, databaseUrl: databaseUrlOf(config), temporalAddress: temporalAddressOf(config), logger, tracing });
  onShutdownSignal(async () => {
    await intake.close();
    await tracing?.shutdown();
  }, (line) => logger.info(line));
  reportReady({ smtp: intake.smtp });
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
