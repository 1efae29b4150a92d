import { Client } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import { loadMasterKey } from '../config/master-key';
import { connectDatabase } from '../db/connection';
import { createRepositories } from '../db/repositories';
import { SecretBox } from '../domain/secret-box';
import type { ActivityDependencies } from '../activities';
import { createWorkers } from './create-worker';
import { inlineWebhookAttempts, webhookAttemptShares } from './tuning';
import { ensureSchedules } from './schedules';
import { startMetricsServer } from '../config/metrics';
import { tracingClientInterceptors, type Tracing } from '../config/tracing';
import { registerSearchAttributes } from '../temporal/register-search-attributes';
import { createBlobStore } from '../storage/create-blob-store';

export type RunningWorker = { done: Promise<void>; shutdown(): Promise<void> };

/** Connects, builds every activity dependency once, and runs the worker until shutdown(). */
export async function startWorker(options: {
  config: AppConfig;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
  workflowBundlePath?: string;
  /** On (config/tracing.ts): workflows, activities and the workflows activities start are traced. */
  tracing?: Tracing;
}): Promise<RunningWorker> {
  const { config, logger } = options;
  const db = connectDatabase(options.databaseUrl, config.databasePoolMax);
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  // The activities' client shares the worker's connection, so the workflows they start (a
  // delivery per endpoint and event, above all) start eagerly on this worker.
  const client = new Client({ connection, namespace: config.temporal.namespace, interceptors: tracingClientInterceptors(options.tracing) });
  const dependencies = buildActivityDependencies(config, db, client);
  const registered = await registerSearchAttributes(client, config.temporal.namespace);
  if (registered.length) logger.info({ searchAttributes: registered }, 'search attributes registered');
  await ensureSchedules(client, config.temporal.taskQueue);
  const workers = await createWorkers({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    dependencies,
    workflowBundlePath: options.workflowBundlePath,
    tracing: options.tracing,
  });
  const metrics = await startMetricsServer({ port: config.metrics.workerPort, host: config.http.host });
  if (metrics) logger.info({ url: metrics.url }, 'worker metrics');
  const done = workers
    .run()
    .catch((error: unknown) => {
      logger.error({ err: error }, 'worker stopped with an error');
      throw error;
    })
    .finally(async () => {
      await metrics?.close();
      await connection.close();
      await db.destroy();
    });
  return {
    done,
    async shutdown() {
      workers.shutdown();
      await done.catch(() => undefined);
    },
  };
}

/** `env` carries the worker's tuning (worker/tuning.ts), as createWorker reads it. */
export function buildActivityDependencies(config: AppConfig, db: ActivityDependencies['db'], client: Client, env: NodeJS.ProcessEnv = process.env): ActivityDependencies {
  const masterKey = loadMasterKey(config);
  return {
    db,
    repositories: createRepositories(db),
    secretBox: new SecretBox(masterKey),
    // Activities only read and write blobs; download links are made by the API.
    blobStore: createBlobStore(config, masterKey, () => config.http.publicBaseUrl ?? ''),
    temporal: { client, taskQueue: config.temporal.taskQueue, startsEagerly: client.connection instanceof NativeConnection },
    webhooks: {
      allowPrivateTargets: config.webhooks.allowPrivateTargets,
      repairAfterSeconds: config.webhooks.repairAfterSeconds,
      inlineAttempts: inlineWebhookAttempts(env),
      attemptShares: webhookAttemptShares(env),
    },
    exports: { alegraBaseUrl: config.exports.alegraBaseUrl },
    dian: { simulatorUrl: config.dian.simulatorUrl, bulkListing: config.dian.bulkListing },
  };
}
