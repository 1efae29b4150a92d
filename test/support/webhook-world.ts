import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import pino from 'pino';
import { createActivities } from '../../activities';
import { buildApiDependencies } from '../../api/app-context';
import { createHttpServer } from '../../api/http-server';
import { createApp } from '../../api/server';
import { loadConfig } from '../../config';
import { buildActivityDependencies } from '../../worker/start-worker';
import { workflowIdsFor } from '../../workflows/messages';
import { publishEventWorkflow } from '../../workflows/publish-event';
import { createTestDatabase, testTemporalAddress, type TestDatabase } from './database';
import { createTimeSkippingEnvironment } from './time-skipping';
import { serviceWorkflows } from './workflow-bundle';
import { createWebhookAttemptWorker } from './webhook-attempt-worker';

/**
 * The webhook engine under the time-skipping server (or, for tests that need no timers, the
 * suite's dev server): the real workflows and activities over a fresh database, and the real API
 * app whose Temporal client is the test environment's.
 */
export async function startWebhookWorld(extraEnv: Record<string, string> = {}, engine: 'time-skipping' | 'dev-server' = 'time-skipping') {
  const env: TestWorkflowEnvironment =
    engine === 'time-skipping' ? await createTimeSkippingEnvironment() : await TestWorkflowEnvironment.createFromExistingServer({ address: testTemporalAddress() });
  const database: TestDatabase = await createTestDatabase();
  const taskQueue = `webhooks-${randomUUID()}`;
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_SECOND: '0',
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...extraEnv,
  });
  const activities = createActivities(buildActivityDependencies(config, database.db, env.client, { ...process.env, ...extraEnv }));
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    ...serviceWorkflows(),
    activities,
  });
  const attemptWorker = await createWebhookAttemptWorker(env.nativeConnection, taskQueue, activities.deliverAttempt);
  const running = Promise.all([worker.run(), attemptWorker.run()]);

  const { app } = createApp(buildApiDependencies(config, database.db, { connection: env.connection, client: env.client }, pino({ level: 'silent' }), () => apiUrl));
  const server = createHttpServer(app, pino({ level: 'silent' }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    env,
    database,
    config,
    taskQueue,
    apiUrl,
    /** Publishes an event as a capability would, returning its id once deliveries have started. */
    async publish(companyId: number, type: string, data: unknown = {}): Promise<string> {
      const id = randomUUID();
      await env.client.workflow.execute(publishEventWorkflow, {
        workflowId: workflowIdsFor(taskQueue).publishEvent(id),
        taskQueue,
        args: [{ event: { id, companyId, type, data } }],
      });
      return id;
    },
    /** Starts publishing an event without waiting (no time skipping meanwhile); returns its id. */
    async startPublish(companyId: number, type: string, data: unknown = {}): Promise<string> {
      const id = randomUUID();
      await env.client.workflow.start(publishEventWorkflow, {
        workflowId: workflowIdsFor(taskQueue).publishEvent(id),
        taskQueue,
        args: [{ event: { id, companyId, type, data } }],
      });
      return id;
    },
    /** Polls the endpoint's counter as the API shows it (the entity mirrors it asynchronously). */
    async consecutiveFailures(endpointId: number, expected: number): Promise<number> {
      let value = -1;
      for (let i = 0; i < 300; i += 1) {
        value = (await database.db('webhook_endpoints').where({ id: endpointId }).first('consecutive_failures')).consecutive_failures;
        if (value === expected) return value;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return value;
    },
    /** How many outcomes the endpoint's entity was sent (signals in its current run). */
    async entitySignals(endpointId: number): Promise<number> {
      const history = await env.client.workflow.getHandle(workflowIdsFor(taskQueue).endpoint(endpointId)).fetchHistory();
      return (history.events ?? []).filter((event) => event.workflowExecutionSignaledEventAttributes).length;
    },
    /** The result of a resend (its workflow id adds its own delivery id). */
    resendResult(endpointId: number, eventId: string, resendDeliveryId: number): Promise<'delivered' | 'failed'> {
      return env.client.workflow.getHandle(workflowIdsFor(taskQueue).delivery(endpointId, eventId, resendDeliveryId)).result();
    },
    deliveryResult(endpointId: number, eventId: string): Promise<'delivered' | 'failed'> {
      return env.client.workflow.getHandle(workflowIdsFor(taskQueue).delivery(endpointId, eventId)).result();
    },
    /**
     * The results of deliveries that need no timer (every attempt answered at once), waited for
     * without skipping time: a handle's result() unlocks time skipping, even for a closed
     * workflow, and when it finds the system idle the server jumps to its next timer, which can
     * be the endpoint entity's 10-year run timeout (the Java test server gives every run one;
     * real servers do not): the entity ends and the next report starts a fresh run.
     */
    async immediateDeliveryResults(endpointId: number, eventIds: string[]): Promise<('delivered' | 'failed')[]> {
      const results: ('delivered' | 'failed')[] = [];
      for (const eventId of eventIds) {
        const handle = env.client.workflow.getHandle(workflowIdsFor(taskQueue).delivery(endpointId, eventId));
        for (let i = 0; ; i += 1) {
          const { status } = await handle.describe().catch(() => ({ status: { name: 'NOT_STARTED' } }));
          if (status.name !== 'RUNNING' && status.name !== 'NOT_STARTED') break;
          if (i >= 600) throw new Error(`delivery of ${eventId} still ${status.name} after 60 s`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const row = await database.db('webhook_deliveries').where({ endpoint_id: endpointId, event_id: eventId }).whereNull('resend_of').first('status');
        results.push(row.status);
      }
      return results;
    },
    /** The results of several deliveries, one wait at a time: the test server's time-skipping lock is not reentrant. */
    async deliveryResults(endpointId: number, eventIds: string[]): Promise<('delivered' | 'failed')[]> {
      const results: ('delivered' | 'failed')[] = [];
      for (const eventId of eventIds) results.push(await env.client.workflow.getHandle(workflowIdsFor(taskQueue).delivery(endpointId, eventId)).result());
      return results;
    },
    async close() {
      server.closeAllConnections();
      server.close();
      for (const each of [worker, attemptWorker]) if (each.getState() === 'RUNNING') each.shutdown();
      await running;
      await env.teardown();
      await database.drop();
    },
  };
}

export type WebhookWorld = Awaited<ReturnType<typeof startWebhookWorld>>;
