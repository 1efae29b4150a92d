import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import type { webhookDeliveryWorkflowV2 } from '../../workflows/webhook-delivery';
import { createTimeSkippingEnvironment } from '../support/time-skipping';
import { serviceWorkflows } from '../support/workflow-bundle';

// An attempt whose activity fails (here: its attempt row could not be written) is recorded as
// lost. The client reads that record's last_error: it must say the attempt was interrupted, not
// carry the worker's internals (the failed statement's SQL).
let env: TestWorkflowEnvironment;
test.before(async () => {
  env = await createTimeSkippingEnvironment();
});
test.after.always(async () => env?.teardown());

test('a lost attempt is recorded as interrupted, without the failure\'s internal message', async (t) => {
  const lost: { attempt: number; error: string }[] = [];
  const taskQueue = 'webhook-lost-attempt';
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...serviceWorkflows(),
    activities: {
      async deliverAttempt(request: { attempt: number }) {
        if (request.attempt === 1) {
          throw ApplicationFailure.retryable('insert into "webhook_attempts" ("error") values ($1) - invalid byte sequence for encoding "UTF8": 0x00', 'DatabaseError');
        }
        return { kind: 'delivered', counterUnaffected: true };
      },
      async recordLostAttempt(request: { attempt: number; error: string }) {
        lost.push({ attempt: request.attempt, error: request.error });
      },
      async reportAttemptOutcome() {},
    },
  });
  const outcome = await worker.runUntil(
    env.client.workflow.execute<typeof webhookDeliveryWorkflowV2>('webhookDeliveryWorkflowV2', {
      args: [{ deliveryId: 1, endpointId: 1, eventId: 'evt_lost' }],
      taskQueue,
      workflowId: `webhook-lost-attempt-${Date.now()}`,
    }),
  );
  t.is(outcome, 'delivered', 'the next attempt, a minute later, delivered');
  t.deepEqual(lost, [{ attempt: 1, error: 'attempt interrupted: the worker failed while making or recording it' }]);
});
