import { Worker, type NativeConnection } from '@temporalio/worker';
import { webhookAttemptQueueOf } from '../../workflows/messages';

/**
 * The worker of webhook attempts made as activity tasks, as createWorkers runs it next to the
 * main one (worker/create-worker.ts), for tests that build their workers by hand.
 */
export function createWebhookAttemptWorker(connection: NativeConnection, taskQueue: string, deliverAttempt: (...args: never[]) => Promise<unknown>): Promise<Worker> {
  return Worker.create({ connection, taskQueue: webhookAttemptQueueOf(taskQueue), activities: { deliverAttempt } });
}
