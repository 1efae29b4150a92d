import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import { connectDatabase } from '../db/connection';
import { buildApiDependencies } from './app-context';
import { createHttpServer, httpServerTimeouts } from './http-server';
import { createApp } from './server';
import { startMetricsServer } from '../config/metrics';
import { tracingClientInterceptors, type Tracing } from '../config/tracing';

/** With Postgres unreachable, a request fails within this with 503 service_unavailable. */
export const DATABASE_ACQUIRE_TIMEOUT_MS = 3_000;

export type RunningApi = {
  url: string;
  close(): Promise<void>;
};

/**
 * Builds the API's dependencies and listens; close() drains connections and releases them.
 * The SMTP intake is a process of its own (intake/start-intake.ts).
 */
export async function startApi(options: {
  config: AppConfig;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
  /** On (config/tracing.ts): the workflows a request starts join its trace. */
  tracing?: Tracing;
}): Promise<RunningApi> {
  const { config, logger } = options;
  const db = connectDatabase(options.databaseUrl, config.databasePoolMax, { acquireTimeoutMs: DATABASE_ACQUIRE_TIMEOUT_MS });
  // Lazy: the API starts, and reports itself degraded on /healthz, while Temporal is down.
  const connection = Connection.lazy({ address: options.temporalAddress });
  const client = new Client({ connection, namespace: config.temporal.namespace, interceptors: tracingClientInterceptors(options.tracing) });
  let publicBaseUrl = config.http.publicBaseUrl ?? '';
  const dependencies = buildApiDependencies(config, db, { connection, client }, logger, () => publicBaseUrl);
  const { app } = createApp(dependencies);

  const server = createHttpServer(app, logger, httpServerTimeouts(config.http.timeouts));
  server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.http.port, config.http.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host;
  const url = config.http.publicBaseUrl ?? `http://${host}:${port}`;
  publicBaseUrl = url;
  const metrics = await startMetricsServer({ port: config.metrics.apiPort, host: config.http.host });
  if (metrics) logger.info({ url: metrics.url }, 'API metrics');

  return {
    url,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await metrics?.close();
      await connection.close();
      await db.destroy();
    },
  };
}
