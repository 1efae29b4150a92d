import path from 'node:path';
import { databaseUrlOf, EMBEDDED_DATABASE_NAME, temporalAddressOf, type AppConfig } from '../../config';
import { ensureTemporalCli } from '../provision/temporal-cli';
import { ensureTemporalServer, ensureTemporalSqlTool, ensureTemporalUiServer, temporalPostgresSchemaDir } from '../provision/temporal-server';
import { keepRunning } from './kept-running';
import { createDatabaseIfMissing, POSTGRES_SUPERUSER, startEmbeddedPostgres, watchPostmaster, type EmbeddedPostgres } from './postgres';
import { startTemporalCluster } from './temporal-cluster';
import { startTemporalDevServer } from './temporal-dev-server';

export type LocalServices = {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | null;
  /** What runs Temporal here, for the start banner. */
  temporalEngine: string;
  /** Temporal's process (and the UI server's) when we started them (recorded for the next start, run-record.ts). */
  temporalPid?: number;
  temporalUiPid?: number;
  stop(): Promise<void>;
};

/** Temporal's processes after a restart (scripts/embedded/kept-running.ts), for the run record. */
export type TemporalPids = { temporalPid?: number; temporalUiPid?: number };

/**
 * Which Temporal runs when TEMPORAL_ADDRESS names none: `npm start` runs the CLI's dev server
 * (SQLite, UI included); `npm run start:cluster` the Temporal server on the embedded Postgres,
 * with the UI server next to it (docs/scaling.md).
 */
export type TemporalEngine = 'dev-server' | 'cluster';

/**
 * The embedded defaults: a Postgres cluster under the data folder (unless DATABASE_URL names
 * one and Temporal needs none) and Temporal (unless TEMPORAL_ADDRESS names one). Each is
 * restarted when it stops by itself (kept-running.ts); temporalRestarted hears Temporal's new pids.
 */
export async function startLocalServices(
  config: AppConfig,
  log: (line: string) => void,
  engine: TemporalEngine = 'dev-server',
  temporalRestarted: (pids: TemporalPids) => void = () => undefined,
): Promise<LocalServices> {
  const stops: (() => Promise<void>)[] = [];
  const runsCluster = engine === 'cluster' && !config.temporal.address;
  try {
    let databaseUrl = databaseUrlOf(config);
    let postgres: EmbeddedPostgres | undefined;
    if (!config.databaseUrl || runsCluster) {
      const startPostgres = async () => {
        const started = await startEmbeddedPostgres({
          dataDir: path.join(config.dataDir, 'postgres'),
          port: config.embeddedPostgresPort,
          // The caller holds DATA_DIR (run-record.ts): a cluster running there is a crashed start's.
          takeOver: true,
          log,
        });
        const watch = watchPostmaster(started.dataDir);
        return { ...started, exited: watch.stopped, stop: async () => (watch.unwatch(), started.stop()) };
      };
      const kept = await keepRunning('postgres', startPostgres, { log });
      postgres = kept.current();
      stops.push(() => kept.stop());
      if (!config.databaseUrl) {
        await createDatabaseIfMissing(postgres.url(), EMBEDDED_DATABASE_NAME);
        databaseUrl = postgres.url(EMBEDDED_DATABASE_NAME);
      }
    }

    const services: Omit<LocalServices, 'stop'> = {
      databaseUrl,
      temporalAddress: temporalAddressOf(config),
      temporalUiUrl: null,
      temporalEngine: `external Temporal at ${temporalAddressOf(config)}`,
    };
    if (runsCluster && postgres) {
      const [serverPath, sqlToolPath, uiServerPath] = await Promise.all([ensureTemporalServer(log), ensureTemporalSqlTool(log), ensureTemporalUiServer(log)]);
      const schemaDir = await temporalPostgresSchemaDir();
      const postgresPort = postgres.port;
      const startCluster = () => startTemporalCluster({
        serverPath,
        sqlToolPath,
        schemaDir,
        postgres: { host: '127.0.0.1', port: postgresPort, ...POSTGRES_SUPERUSER },
        dir: path.join(config.dataDir, 'temporal-cluster'),
        frontendPort: config.temporal.devServerPort,
        historyShards: config.temporal.historyShards,
        ui: { serverPath: uiServerPath, port: config.temporal.uiPort },
        ownSession: true,
        log,
      });
      const kept = await keepRunning('the Temporal server', startCluster, {
        log,
        restarted: (cluster) => temporalRestarted({ temporalPid: cluster.pid, temporalUiPid: cluster.uiPid }),
      });
      const cluster = kept.current();
      stops.push(() => kept.stop());
      Object.assign(services, {
        temporalAddress: cluster.address,
        temporalUiUrl: cluster.uiUrl,
        temporalEngine: `Temporal server on Postgres, ${config.temporal.historyShards} history shards`,
        temporalPid: cluster.pid,
        temporalUiPid: cluster.uiPid,
      });
    } else if (!config.temporal.address) {
      const cliPath = await ensureTemporalCli(log);
      const startDevServer = () => startTemporalDevServer({
        cliPath,
        port: config.temporal.devServerPort,
        uiPort: config.temporal.uiPort,
        dbFile: path.join(config.dataDir, 'temporal', 'dev-server.sqlite'),
        logFile: path.join(config.dataDir, 'temporal', 'dev-server.log'),
        ownSession: true,
        takeOver: true,
        log,
      });
      const kept = await keepRunning('the Temporal dev server', startDevServer, { log, restarted: (devServer) => temporalRestarted({ temporalPid: devServer.pid }) });
      const devServer = kept.current();
      stops.push(() => kept.stop());
      Object.assign(services, { temporalAddress: devServer.address, temporalUiUrl: devServer.uiUrl, temporalEngine: 'Temporal dev server', temporalPid: devServer.pid });
    }

    return {
      ...services,
      async stop() {
        for (const stop of stops.reverse()) await stop();
      },
    };
  } catch (error) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw error;
  }
}
