import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { NoopActivities, noopWorkflow } from '../webhooks/noop-workflow';
import type { CleanupStack } from './cleanup';
import { runBounded } from './stats';

export type NoopBaseline = {
  /** `count` no-op workflows (one activity each), `concurrency` at a time, start → result; workflows/s. */
  run(count: number, concurrency: number): Promise<number>;
};

/**
 * The least a Temporal workflow with one activity costs on this server (bench/webhooks/noop-workflow.ts),
 * on a worker in the benchmark's process with its own task queue: the yardstick pipelines are
 * divided by, measured in the same run so the machine's load affects both alike.
 */
export async function startNoopBaseline(temporalAddress: string, cleanup: CleanupStack): Promise<NoopBaseline> {
  const taskQueue = `bench-noop-${randomUUID()}`;
  const nativeConnection = await NativeConnection.connect({ address: temporalAddress });
  cleanup.push('close the baseline worker connection', () => nativeConnection.close());
  const activities: NoopActivities = { noop: async () => undefined };
  const worker = await Worker.create({
    connection: nativeConnection,
    namespace: 'default',
    taskQueue,
    workflowsPath: path.resolve(__dirname, '../webhooks/noop-workflow.ts'),
    activities,
  });
  const running = worker.run();
  cleanup.push('stop the baseline worker', async () => {
    if (worker.getState() === 'RUNNING') worker.shutdown();
    await running;
  });
  const connection = await Connection.connect({ address: temporalAddress });
  cleanup.push('close the baseline client connection', () => connection.close());
  const client = new Client({ connection, namespace: 'default' });
  return {
    async run(count, concurrency) {
      const started = performance.now();
      await runBounded(count, concurrency, async () => {
        const handle = await client.workflow.start<typeof noopWorkflow>('noopWorkflow', { taskQueue, workflowId: `bench-noop-${randomUUID()}` });
        await handle.result();
      });
      return count / ((performance.now() - started) / 1000);
    },
  };
}
