import path from 'node:path';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';

/** A worker for bench/engine/workflows.ts on its own task queue: its one activity does nothing. */
export function createNoopWorker(connection: NativeConnection, taskQueue: string, tuning: Partial<WorkerOptions>): Promise<Worker> {
  return Worker.create({
    connection,
    taskQueue,
    workflowsPath: path.resolve(__dirname, 'workflows.ts'),
    activities: { noop: async () => undefined },
    ...tuning,
  });
}
