import { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import { loadMasterKey } from '../config/master-key';
import { startMetricsServer } from '../config/metrics';
import { tracingClientInterceptors, type Tracing } from '../config/tracing';
import { connectDatabase } from '../db/connection';
import { createRepositories } from '../db/repositories';
import { createBlobStore } from '../storage/create-blob-store';
import { startEmailIntake } from './email-server';

export type RunningIntake = {
  smtp: { host: string; port: number; domain: string };
  /** Its Prometheus /metrics (INTAKE_METRICS_PORT; undefined when 0). */
  metricsUrl?: string;
  close(): Promise<void>;
};

/**
 * The SMTP intake as a process of its own (docs/email-intake.md): it faces the internet, the
 * API need not, and a crash in one never stops the other. It needs Postgres (inbox lookups,
 * uploaded-file rows), the blob store and a Temporal client to start imports.
 */
export async function startIntake(options: {
  config: AppConfig;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
  tracing?: Tracing;
}): Promise<RunningIntake> {
  const { config, logger } = options;
  const db = connectDatabase(options.databaseUrl, Math.min(config.databasePoolMax, 5));
  // Lazy: messages are answered 451 (the sender retries) while Temporal is down.
  const connection = Connection.lazy({ address: options.temporalAddress });
  const client = new Client({ connection, namespace: config.temporal.namespace, interceptors: tracingClientInterceptors(options.tracing) });
  const release = async () => {
    await connection.close();
    await db.destroy();
  };
  try {
    const email = await startEmailIntake({
      repositories: createRepositories(db),
      // The intake only writes blobs; download links are made by the API.
      blobStore: createBlobStore(config, loadMasterKey(config), () => config.http.publicBaseUrl ?? ''),
      temporal: { client, taskQueue: config.temporal.taskQueue },
      logger,
      config: config.email,
    });
    const metrics = await startMetricsServer({ port: config.metrics.intakePort, host: config.http.host }).catch(async (error: unknown) => {
      await email.close();
      throw error;
    });
    if (metrics) logger.info({ url: metrics.url }, 'intake metrics');
    return {
      smtp: { host: config.email.host === '0.0.0.0' ? '127.0.0.1' : config.email.host, port: email.port, domain: config.email.domain },
      metricsUrl: metrics?.url,
      async close() {
        await email.close();
        await metrics?.close();
        await release();
      },
    };
  } catch (error) {
    await release();
    throw error;
  }
}
