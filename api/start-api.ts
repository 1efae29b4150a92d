import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import { connectDatabase } from '../db/connection';
import { startEmailIntake } from '../intake/email-server';
import { buildApiDependencies } from './app-context';
import { createHttpServer } from './http-server';
import { createApp } from './server';

export type RunningApi = {
  url: string;
  /** The SMTP intake (docs/email-intake.md), when SMTP_PORT is not 0. */
  smtp: { host: string; port: number; domain: string } | null;
  close(): Promise<void>;
};

/**
 * Builds the API's dependencies and listens, with the SMTP intake beside it on the same
 * repositories, blob store and Temporal client; close() drains connections and releases them.
 */
export async function startApi(options: {
  config: AppConfig;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
}): Promise<RunningApi> {
  const { config, logger } = options;
  const db = connectDatabase(options.databaseUrl, config.databasePoolMax);
  // Lazy: the API starts, and reports itself degraded on /healthz, while Temporal is down.
  const connection = Connection.lazy({ address: options.temporalAddress });
  const client = new Client({ connection, namespace: config.temporal.namespace });
  let publicBaseUrl = config.http.publicBaseUrl ?? '';
  const dependencies = buildApiDependencies(config, db, { connection, client }, logger, () => publicBaseUrl);
  const { app } = createApp(dependencies);

  const server = createHttpServer(app, logger);
  server.keepAliveTimeout = 65_000; // longer than common load balancers' idle timeout
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.http.port, config.http.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = config.http.host === '0.0.0.0' ? '127.0.0.1' : config.http.host;
  const url = config.http.publicBaseUrl ?? `http://${host}:${port}`;
  publicBaseUrl = url;

  let email: Awaited<ReturnType<typeof startEmailIntake>> | null = null;
  if (config.email.port > 0) {
    try {
      email = await startEmailIntake({
        repositories: dependencies.repositories,
        blobStore: dependencies.blobStore,
        temporal: { client, taskQueue: config.temporal.taskQueue },
        logger,
        config: config.email,
      });
    } catch (error) {
      server.close();
      server.closeIdleConnections();
      await connection.close();
      await db.destroy();
      throw error;
    }
  }

  return {
    url,
    smtp: email ? { host: config.email.host === '0.0.0.0' ? '127.0.0.1' : config.email.host, port: email.port, domain: config.email.domain } : null,
    async close() {
      await email?.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
      });
      await connection.close();
      await db.destroy();
    },
  };
}
