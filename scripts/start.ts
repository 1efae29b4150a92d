import { DefaultLogger, Runtime } from '@temporalio/worker';
import { loadConfig } from '../config';
import { createLogger, temporalRuntimeLogLevel } from '../config/logger';
import { onShutdownSignal } from '../config/shutdown';
import { installProcessSafetyNet } from '../config/process-safety';
import { connectDatabase, migrateToLatest } from '../db/connection';
import { createRepositories } from '../db/repositories';
import { startApi } from '../api/start-api';
import { startWorker } from '../worker/start-worker';
import { startLocalServices } from './embedded/local-services';
import { seedDemoOnFirstRun } from './demo-seed';
import { loadMasterKey } from '../config/master-key';
import { createBlobStore } from '../storage/create-blob-store';
import { startDianSimulator } from '../integrations/dian/simulator/server';
import { verifyXadesSignature } from '../domain/dian/xades';

/**
 * `npm start`: the whole service on one machine. Embedded Postgres and the Temporal dev
 * server (unless DATABASE_URL / TEMPORAL_ADDRESS are set), migrations, the worker and the API.
 * Ctrl-C stops them in reverse order.
 */
async function main() {
  const config = loadConfig();
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(temporalRuntimeLogLevel(config)) });
  const logger = createLogger(config, 'invoicing');
  installProcessSafetyNet(logger);
  const say = (line: string) => console.log(`[start] ${line}`);

  const services = await startLocalServices(config, say);
  const stops: (() => Promise<void>)[] = [() => services.stop()];
  const stopAll = async () => {
    for (const stop of stops.reverse()) await stop().catch((error: Error) => say(`while stopping: ${error.message}`));
  };
  onShutdownSignal(stopAll, say);

  try {
    const db = connectDatabase(services.databaseUrl, 2);
    const applied = await migrateToLatest(db);
    if (applied.length) say(`migrations applied: ${applied.length}`);
    const blobStore = createBlobStore(config, loadMasterKey(config), () => config.http.publicBaseUrl ?? '');
    const demo = await seedDemoOnFirstRun(createRepositories(db), blobStore, config);
    await db.destroy();

    // Companies whose DIAN environment is 'simulator' talk to DIAN_SIMULATOR_URL, or to an embedded one.
    let dianSimulatorUrl = config.dian.simulatorUrl;
    if (!dianSimulatorUrl) {
      const simulator = await startDianSimulator({ verifyApplicationResponse: verifyXadesSignature });
      stops.push(() => simulator.close());
      dianSimulatorUrl = simulator.url;
    }
    const runtime = { config: { ...config, dian: { simulatorUrl: dianSimulatorUrl } }, databaseUrl: services.databaseUrl, temporalAddress: services.temporalAddress, logger };
    say('bundling workflows and starting the worker…');
    const worker = await startWorker(runtime);
    stops.push(() => worker.shutdown());
    const api = await startApi(runtime);
    stops.push(() => api.close());

    say(`API:         ${api.url}   (health: ${api.url}/healthz, OpenAPI: ${api.url}/v1/openapi.json)`);
    if (api.smtp) say(`SMTP:        smtp://${api.smtp.host}:${api.smtp.port}   (company inboxes: <inbox_token>@${api.smtp.domain}, see inbox_email)`);
    say(`Temporal UI: ${services.temporalUiUrl ?? `(external Temporal at ${services.temporalAddress})`}`);
    say(`Postgres:    ${redactPassword(services.databaseUrl)}`);
    say(`DIAN simulator: ${dianSimulatorUrl}   (companies with environment 'simulator', docs/dian.md)`);
    if (demo) {
      say('first run: created a demo company and an admin API key (shown only now, keep it):');
      console.log(JSON.stringify(demo, null, 2));
      say(`try: curl -H "Authorization: Bearer ${demo.api_key.key}" ${api.url}/v1/companies/${demo.company.id}/invoices`);
    }
    say('press Ctrl-C to stop');
    worker.done.catch(async () => {
      say('the worker stopped unexpectedly; shutting everything down');
      await stopAll();
      process.exit(1);
    });
  } catch (error) {
    await stopAll();
    throw error;
  }
}

function redactPassword(url: string): string {
  return url.replace(/\/\/([^:/@]+):[^@]+@/, '//$1:***@');
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
