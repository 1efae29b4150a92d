import path from 'node:path';
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createSystemActivities } from '../../activities/system';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { createTimeSkippingEnvironment } from '../support/time-skipping';
import type { delayedCheckWorkflow } from '../support/workflows/delayed-check';

let env: TestWorkflowEnvironment;
let database: TestDatabase;

test.before(async () => {
  env = await createTimeSkippingEnvironment();
  database = await createTestDatabase();
});
test.after.always(async () => {
  await env?.teardown();
  await database?.drop();
});

test('a two-hour durable timer completes in seconds under the time-skipping server', async (t) => {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue: 'time-skipping-timer',
    workflowsPath: path.resolve(__dirname, '../support/workflows/delayed-check.ts'),
    activities: createSystemActivities({ db: database.db }),
  });
  const wallClockStart = Date.now();
  const virtualStart = await env.currentTimeMs();
  const databaseTime = await worker.runUntil(
    env.client.workflow.execute<typeof delayedCheckWorkflow>('delayedCheckWorkflow', {
      args: ['2 hours'],
      taskQueue: 'time-skipping-timer',
      workflowId: `delayed-check-${Date.now()}`,
    }),
  );
  t.true(Date.now() - wallClockStart < 30_000, 'ran in wall-clock seconds');
  t.true((await env.currentTimeMs()) - virtualStart >= 2 * 60 * 60 * 1000, 'virtual time moved by at least two hours');
  t.regex(databaseTime, /^\d{4}-\d{2}-\d{2}T/, 'the activity after the timer reached Postgres');
});
