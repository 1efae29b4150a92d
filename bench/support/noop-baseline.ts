import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { noopWorkflow, type NoopActivities } from '../webhooks/noop-workflow';
import type { CleanupStack } from './cleanup';
import { runBounded } from './stats';

/** Concurrent handle.result() long polls the server accepts comfortably (frontend.namespaceCount is 1200). */
const MAX_RESULT_WAITERS = 1000;

export type NoopBaseline = {
  /**
   * `count` no-op workflows (one activity each) with at most `concurrency` starts in flight, as
   * the pipelines bound their uploads or emits (not their processing): workflows/s from the first
   * start to the last result.
   */
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
      // Only the starts are bounded: a file's import also runs while later files upload. Waiting
      // for each result inside the bound (as before 2026-11-23) measured 8 workflows' latency,
      // not the engine's throughput, and swung from 29 to 61 workflows/s within one run.
      // Result long polls stay below the server's per-namespace limit (bench/webhooks.ts).
      if (count > MAX_RESULT_WAITERS) throw new Error(`the baseline waits on at most ${MAX_RESULT_WAITERS} results at once; asked for ${count}`);
      const started = performance.now();
      const results: Promise<void>[] = [];
      const failures: unknown[] = [];
      await runBounded(count, concurrency, async () => {
        const handle = await client.workflow.start(noopWorkflow, { taskQueue, workflowId: `bench-noop-${randomUUID()}` });
        results.push(handle.result().catch((error: unknown) => void failures.push(error)));
      });
      await Promise.all(results);
      if (failures.length > 0) throw new Error(`${failures.length} of ${count} no-op workflows failed`, { cause: failures[0] });
      return count / ((performance.now() - started) / 1000);
    },
  };
}
