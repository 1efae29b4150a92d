import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import type { AppConfig } from '../../config';
import { tracingClientInterceptors, type Tracing } from '../../config/tracing';
import { createWorkers } from '../../worker/create-worker';
import { buildActivityDependencies } from '../../worker/start-worker';
import { registerSearchAttributes } from '../../temporal/register-search-attributes';
import type { TestDatabase } from './database';
import { testTemporalAddress } from './database';
import { sharedWorkflowBundle } from './workflow-bundle';

let runtimeInstalled = false;

/** Keeps the SDK's INFO chatter out of the TAP stream; warnings and errors still show. */
export function quietTemporalRuntime(): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  try {
    Runtime.install({ logger: new DefaultLogger('WARN') });
  } catch {
    // Already installed by an earlier helper in this process.
  }
}

export type TestWorker = {
  worker: Worker;
  taskQueue: string;
  /** The worker's connection, which its activities' client shares (eager workflow starts). */
  connection: NativeConnection;
  stop(): Promise<void>;
};

/**
 * The real worker (every workflow and activity) against the suite's dev server, on the task
 * queue of the given config (startTestApi gives each test file a queue of its own); with
 * `tracing`, traced as worker/start-worker.ts does it.
 */
export async function startTestWorker(database: TestDatabase, config: AppConfig, options: { tracing?: Tracing; env?: NodeJS.ProcessEnv } = {}): Promise<TestWorker> {
  quietTemporalRuntime();
  const address = testTemporalAddress();
  const connection = await NativeConnection.connect({ address });
  // As worker/start-worker.ts: the activities' client shares the worker's connection (eager starts).
  const client = new Client({ connection, namespace: config.temporal.namespace, interceptors: tracingClientInterceptors(options.tracing) });
  const taskQueue = config.temporal.taskQueue;
  await registerSearchAttributes(client, config.temporal.namespace);
  const workers = await createWorkers({
    connection,
    namespace: config.temporal.namespace,
    taskQueue,
    dependencies: buildActivityDependencies(config, database.db, client, options.env),
    env: options.env,
    workflowBundlePath: sharedWorkflowBundle,
    tracing: options.tracing,
  });
  const running = workers.run();
  return {
    worker: workers.main,
    taskQueue,
    connection,
    async stop() {
      workers.shutdown();
      await running;
      await connection.close();
    },
  };
}
