import { ApplicationFailure } from '@temporalio/common';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Runtime, Worker, DefaultLogger } from '@temporalio/worker';
import { workerTuning } from '../../worker/tuning';
import type { webhookDeliveryWorkflowV3 } from '../../workflows/webhook-delivery';
import { testTemporalAddress } from './database';
import { serviceWorkflows } from './workflow-bundle';

// test/workflows/worker-shutdown.test.ts's worker, in a process of its own (a forced shutdown
// leaves the SDK's core unusable, so the process must end after it, as worker/main.ts does):
// its delivery's inline attempt fails and its lost-attempt bookkeeping keeps failing, as with a
// dropped database; it is stopped meanwhile and prints how the run ended, and when.
async function main() {
  Runtime.install({ logger: new DefaultLogger('ERROR') });
  const address = testTemporalAddress();
  const taskQueue = `stuck-drain-${process.pid}`;
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address }),
    taskQueue,
    ...serviceWorkflows(),
    ...workerTuning({ TEMPORAL_SHUTDOWN_FORCE_SECONDS: process.env.FORCE_SECONDS ?? '3' }),
    activities: {
      async deliverAttemptInline() {
        await new Promise((resolve) => setTimeout(resolve, 500));
        throw ApplicationFailure.retryable('database "gone" does not exist', 'DatabaseError');
      },
      async recordLostAttempt() {
        throw ApplicationFailure.retryable('database "gone" does not exist', 'DatabaseError');
      },
      async reportAttemptOutcome() {},
    },
  });
  const running = worker.run();
  const client = new Client({ connection: await Connection.connect({ address }) });
  await client.workflow.start<typeof webhookDeliveryWorkflowV3>('webhookDeliveryWorkflowV3', {
    args: [{ deliveryId: 1, endpointId: 1, eventId: `evt_${taskQueue}` }],
    taskQueue,
    workflowId: taskQueue,
  });
  await new Promise((resolve) => setTimeout(resolve, 1_500)); // the bookkeeping is failing by now
  const stopped = Date.now();
  worker.shutdown();
  const outcome = await running.then(
    () => 'drained',
    (error: Error) => error.name,
  );
  console.log(JSON.stringify({ outcome, seconds: (Date.now() - stopped) / 1000 }));
  process.exit(0);
}

void main();
