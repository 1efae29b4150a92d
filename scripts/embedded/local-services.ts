import path from 'node:path';
import { databaseUrlOf, EMBEDDED_DATABASE_NAME, temporalAddressOf, type AppConfig } from '../../config';
import { ensureTemporalCli } from '../provision/temporal-cli';
import { createDatabaseIfMissing, startEmbeddedPostgres } from './postgres';
import { startTemporalDevServer } from './temporal-dev-server';

export type LocalServices = {
  databaseUrl: string;
  temporalAddress: string;
  temporalUiUrl: string | null;
  /** The dev server's process when we started one (recorded for the next start, run-record.ts). */
  temporalPid?: number;
  stop(): Promise<void>;
};

/**
 * The embedded defaults: a Postgres cluster and a Temporal dev server (SQLite-backed, with UI)
 * under the data folder, each only when DATABASE_URL / TEMPORAL_ADDRESS do not name one.
 */
export async function startLocalServices(config: AppConfig, log: (line: string) => void): Promise<LocalServices> {
  const stops: (() => Promise<void>)[] = [];
  try {
    let databaseUrl = databaseUrlOf(config);
    if (!config.databaseUrl) {
      const postgres = await startEmbeddedPostgres({
        dataDir: path.join(config.dataDir, 'postgres'),
        port: config.embeddedPostgresPort,
        // The caller holds DATA_DIR (run-record.ts): a cluster running there is a crashed start's.
        takeOver: true,
        log,
      });
      stops.push(() => postgres.stop());
      await createDatabaseIfMissing(postgres.url(), EMBEDDED_DATABASE_NAME);
      databaseUrl = postgres.url(EMBEDDED_DATABASE_NAME);
    }

    let temporalAddress = temporalAddressOf(config);
    let temporalUiUrl: string | null = null;
    let temporalPid: number | undefined;
    if (!config.temporal.address) {
      const cliPath = await ensureTemporalCli(log);
      const devServer = await startTemporalDevServer({
        cliPath,
        port: config.temporal.devServerPort,
        uiPort: config.temporal.uiPort,
        dbFile: path.join(config.dataDir, 'temporal', 'dev-server.sqlite'),
        logFile: path.join(config.dataDir, 'temporal', 'dev-server.log'),
        log,
      });
      stops.push(() => devServer.stop());
      temporalAddress = devServer.address;
      temporalUiUrl = devServer.uiUrl;
      temporalPid = devServer.pid;
    }

    return {
      databaseUrl,
      temporalAddress,
      temporalUiUrl,
      temporalPid,
      async stop() {
        for (const stop of stops.reverse()) await stop();
      },
    };
  } catch (error) {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
    throw error;
  }
}
