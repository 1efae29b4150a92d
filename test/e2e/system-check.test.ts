import test from 'ava';
import { startTestApi, type TestApi } from '../support/api';
import { startTestWorker, type TestWorker } from '../support/worker';
import { eventually } from '../support/eventually';

// API + worker against the Temporal dev server: /healthz?deep=true starts a workflow, the
// worker runs it and its activity reads the time from Postgres.
let api: TestApi;
let worker: TestWorker;
let taskQueue: string;

test.before(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.database, api.config);
  taskQueue = worker.taskQueue;
});
test.after.always(async () => {
  await worker?.stop();
  await api?.close();
});

test('shallow health reports Postgres and Temporal', async (t) => {
  const response = await fetch(`${api.url}/healthz`);
  t.is(response.status, 200);
  t.is(response.headers.get('cache-control'), 'no-store');
  const body = (await response.json()) as { status: string; checks: Record<string, { status: string }> };
  t.is(body.status, 'ok');
  t.deepEqual(Object.keys(body.checks).sort(), ['blob_store', 'postgres', 'temporal']);
});

test('deep health runs the system-check workflow end to end through the worker', async (t) => {
  const response = await fetch(`${api.url}/healthz?deep=true`);
  const body = (await response.json()) as { status: string; checks: Record<string, { status: string; error?: { code: string; message: string } }> };
  t.is(response.status, 200, JSON.stringify(body));
  t.is(body.checks.worker.status, 'ok');

  // The workflow really ran on our task queue and returned the database's clock.
  const executions = api.temporal.client.workflow.list({ query: `TaskQueue = '${taskQueue}'` });
  const ids: string[] = [];
  for await (const execution of executions) ids.push(execution.workflowId);
  t.true(ids.some((id) => id.startsWith('system-check-')));
  const result = await api.temporal.client.workflow.getHandle(ids[0]).result();
  t.regex(result.databaseTime, /^\d{4}-\d{2}-\d{2}T/);
  t.true(Math.abs(Date.parse(result.databaseTime) - Date.now()) < 60_000);
});

async function systemCheckRuns(): Promise<number> {
  let count = 0;
  for await (const execution of api.temporal.client.workflow.list({ query: `TaskQueue = '${taskQueue}' AND WorkflowType = 'systemCheckWorkflow'` })) {
    if (execution.workflowId.startsWith('system-check-')) count += 1;
  }
  return count;
}

test.serial('50 concurrent unauthenticated deep checks share one workflow run, and the result is reused for 5 s', async (t) => {
  const before = await systemCheckRuns();
  const answers = await Promise.all(Array.from({ length: 50 }, () => fetch(`${api.url}/healthz?deep=true`).then(async (response) => {
    await response.arrayBuffer();
    return response.status;
  })));
  t.deepEqual(new Set(answers), new Set([200]));
  const again = await fetch(`${api.url}/healthz?deep=1`);
  t.is(again.status, 200);
  // Visibility is eventually consistent: wait for the run to show, then check no other did.
  await eventually(async () => ((await systemCheckRuns()) > before ? true : undefined));
  t.is(await systemCheckRuns(), before + 1);
});
