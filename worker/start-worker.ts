import { NativeConnection } from '@temporalio/worker';
import type { Logger } from 'pino';
import type { AppConfig } from '../config';
import { connectDatabase } from '../db/connection';
import { createWorker } from './create-worker';

export type RunningWorker = { done: Promise<void>; shutdown(): Promise<void> };

/** Connects, builds every activity dependency once, and runs the worker until shutdown(). */
export async function startWorker(options: {
  config: AppConfig;
  databaseUrl: string;
  temporalAddress: string;
  logger: Logger;
  workflowBundlePath?: string;
}): Promise<RunningWorker> {
  const { config, logger } = options;
  const db = connectDatabase(options.databaseUrl, config.databasePoolMax);
  const connection = await NativeConnection.connect({ address: options.temporalAddress });
  const worker = await createWorker({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.temporal.taskQueue,
    dependencies: { db },
    workflowBundlePath: options.workflowBundlePath,
  });
  const done = worker
    .run()
    .catch((error: unknown) => {
      logger.error({ err: error }, 'worker stopped with an error');
      throw error;
    })
    .finally(async () => {
      await connection.close();
      await db.destroy();
    });
  return {
    done,
    async shutdown() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await done.catch(() => undefined);
    },
  };
}
