import test from 'ava';
import { useApiAndWorker } from '../support/api-and-worker';
import { Client, type WorkflowClientInterceptor } from '@temporalio/client';
import { startWorkflow, type TemporalTarget } from '../../temporal/start-workflow';
import { buildActivityDependencies } from '../../worker/start-worker';
import { systemCheckWorkflow } from '../../workflows/system-check';
import type { SystemCheckResult } from '../../workflows/messages';

// The worker's activities start workflows (a delivery per endpoint and event) through a client
// on the worker's own connection, asking for eager workflow start: the dev server hands the first
// workflow task back in the start response instead of through matching and a poll.
const world = useApiAndWorker(test);

/** A client on the worker's connection that records, per start, whether the server started it eagerly. */
function observedClient(): { client: Client; eagerly: boolean[] } {
  const eagerly: boolean[] = [];
  const observer: WorkflowClientInterceptor = {
    async startWithDetails(input, next) {
      const output = await next(input);
      eagerly.push(output.eagerlyStarted);
      return output;
    },
  };
  const client = new Client({ connection: world.worker.connection, namespace: world.api.config.temporal.namespace, interceptors: { workflow: [observer] } });
  return { client, eagerly };
}

async function runSystemCheck(target: TemporalTarget, workflowId: string): Promise<SystemCheckResult> {
  if (!(await startWorkflow(target, systemCheckWorkflow, { workflowId }))) throw new Error(`${workflowId} was not started`);
  return target.client.workflow.getHandle<typeof systemCheckWorkflow>(workflowId).result();
}

test("the worker's activities get a target that starts eagerly; an API-style client does not", (t) => {
  const onWorkerConnection = buildActivityDependencies(world.api.config, world.api.database.db, new Client({ connection: world.worker.connection, namespace: world.api.config.temporal.namespace }));
  t.true(onWorkerConnection.temporal.startsEagerly);
  const onItsOwnConnection = buildActivityDependencies(world.api.config, world.api.database.db, world.api.temporal.client);
  t.falsy(onItsOwnConnection.temporal.startsEagerly);
});

test('a start through the eager target comes back with its first workflow task, and the workflow runs to its end', async (t) => {
  const { client, eagerly } = observedClient();
  const taskQueue = world.worker.taskQueue;
  const prefix = `${taskQueue}/eager-${Date.now()}`;

  const eager = await runSystemCheck({ client, taskQueue, startsEagerly: true }, `${prefix}-eager`);
  const plain = await runSystemCheck({ client, taskQueue }, `${prefix}-plain`);

  t.deepEqual(eagerly, [true, false], 'the server started the first eagerly and matched the second');
  t.is(eager.workflowId, `${prefix}-eager`);
  t.false(Number.isNaN(Date.parse(eager.databaseTime)), 'its activity read the database clock');
  t.is(plain.workflowId, `${prefix}-plain`);
});

test('an eager start of a workflow id already used answers false and starts nothing', async (t) => {
  const { client, eagerly } = observedClient();
  const target = { client, taskQueue: world.worker.taskQueue, startsEagerly: true };
  const workflowId = `${world.worker.taskQueue}/eager-twice-${Date.now()}`;
  t.true(await startWorkflow(target, systemCheckWorkflow, { workflowId }));
  t.false(await startWorkflow(target, systemCheckWorkflow, { workflowId }));
  await client.workflow.getHandle(workflowId).result();
  t.deepEqual(eagerly, [true], 'only the first start reached the server as a start');
});
