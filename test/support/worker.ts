import { randomUUID } from 'node:crypto';
import { DefaultLogger, NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { createWorker } from '../../worker/create-worker';
import type { TestDatabase } from './database';
import { testTemporalAddress } from './database';

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

export type TestWorker = { worker: Worker; taskQueue: string; stop(): Promise<void> };

/** The real worker (all workflows and activities) on a task queue of its own, against the suite's dev server. */
export async function startTestWorker(database: TestDatabase, taskQueue = `test-${randomUUID()}`): Promise<TestWorker> {
  quietTemporalRuntime();
  const connection = await NativeConnection.connect({ address: testTemporalAddress() });
  const worker = await createWorker({ connection, namespace: 'default', taskQueue, dependencies: { db: database.db } });
  const running = worker.run();
  return {
    worker,
    taskQueue,
    async stop() {
      worker.shutdown();
      await running;
      await connection.close();
    },
  };
}
