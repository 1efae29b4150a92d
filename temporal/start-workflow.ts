import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowOptions, type WorkflowSignalWithStartOptions, type WorkflowStartOptions } from '@temporalio/client';
import type { SearchAttributePair, SignalDefinition, WithWorkflowArgs, Workflow, WorkflowResultType } from '@temporalio/common';
import { currentRequestId, REQUEST_ID_MEMO_KEY } from './request-context';
import { missingSearchAttributes } from './register-search-attributes';
import { searchAttributePairs, type WorkflowSubject } from '../domain/search-attributes';

/** Where workflows start: the Temporal client and the deployment's task queue. */
export type TemporalTarget = {
  client: Client;
  taskQueue: string;
  /**
   * The client shares the NativeConnection of a worker polling taskQueue (the worker's own
   * client, worker/start-worker.ts): starts ask for eager workflow start, so the server hands
   * the first workflow task back in the start response to this worker when it has a free slot,
   * instead of through matching and a poll (decision 0018).
   */
  startsEagerly?: boolean;
};

/**
 * One start: the workflow id (from workflows/messages.ts), the workflow's own arguments (checked
 * against the workflow function) and any further per-start option (timeouts, memo, search
 * attributes). The task queue comes from the target.
 */
export type StartRequest<W extends Workflow> = WithWorkflowArgs<
  W,
  {
    workflowId: string;
    /** What the workflow is about: becomes its search attributes (CompanyId, DocumentId, …). */
    subject?: WorkflowSubject;
  } & Omit<WorkflowOptions, 'workflowId' | 'taskQueue'>
>;

export type SignalWithStartRequest<W extends Workflow, SignalArgs extends unknown[]> = StartRequest<W> & {
  signal: SignalDefinition<SignalArgs>;
  signalArgs: SignalArgs;
};

/**
 * Every workflow the services start goes through this module: the workflow is passed as the
 * function itself (so the compiler checks the arguments) and options every start shares are
 * added here, in one place: the search attributes of the request's subject, and the request id
 * of the work that started it (API request, or the activity of an earlier workflow) in the memo.
 */
function optionsFor<W extends Workflow>(temporal: TemporalTarget, request: StartRequest<W>): WorkflowStartOptions<W> {
  const { subject, ...options } = request;
  const requestId = currentRequestId();
  const memo = requestId ? { [REQUEST_ID_MEMO_KEY]: requestId, ...options.memo } : options.memo;
  const typedSearchAttributes = subject ? [...searchAttributePairs(subject), ...pairsOf(options.typedSearchAttributes)] : options.typedSearchAttributes;
  // The request was checked against W by the caller's signature; TypeScript cannot follow the
  // SDK's conditional args type through a generic spread, hence the assertion.
  return {
    ...options,
    ...(memo ? { memo } : {}),
    ...(typedSearchAttributes ? { typedSearchAttributes } : {}),
    taskQueue: temporal.taskQueue,
  } as WorkflowStartOptions<W>;
}

function pairsOf(attributes: WorkflowOptions['typedSearchAttributes']): SearchAttributePair[] {
  if (!attributes) return [];
  return Array.isArray(attributes) ? attributes : attributes.getAll();
}

/**
 * Starts a workflow. Workflow ids are idempotency keys: when a workflow with this id is already
 * running, nothing happens and the answer is false (a retried call started it earlier).
 */
export async function startWorkflow<W extends Workflow>(temporal: TemporalTarget, workflow: W, request: StartRequest<W>): Promise<boolean> {
  try {
    const options = { ...optionsFor(temporal, request), ...(temporal.startsEagerly ? { requestEagerStart: true } : {}) };
    await withoutUnknownSearchAttributes(temporal.client, options, (withKnownAttributes) => temporal.client.workflow.start(workflow, withKnownAttributes));
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

/**
 * Starts a workflow only if no run with its id ever existed (running or closed): the recovery of
 * work whose row was recorded but whose start was lost (the API died between the two). A closed
 * run is never started again (it may have posted already; `invoicing operations reconcile`
 * settles those). True when this call started it.
 */
export function startIfNeverStarted<W extends Workflow>(temporal: TemporalTarget, workflow: W, request: StartRequest<W>): Promise<boolean> {
  return startWorkflow(temporal, workflow, { ...request, workflowIdReusePolicy: 'REJECT_DUPLICATE' });
}

/** Signals a workflow, starting it first with the request's arguments if it is not running. */
export async function signalWithStartWorkflow<W extends Workflow, SignalArgs extends unknown[]>(
  temporal: TemporalTarget,
  workflow: W,
  request: SignalWithStartRequest<W, SignalArgs>,
): Promise<void> {
  await withoutUnknownSearchAttributes(temporal.client, optionsFor(temporal, request), (options) =>
    temporal.client.workflow.signalWithStart<W, SignalArgs>(workflow, {
      ...options,
      signal: request.signal,
      signalArgs: request.signalArgs,
    } as WithWorkflowArgs<W, WorkflowSignalWithStartOptions<SignalArgs>>),
  );
}

/** Starts a workflow and waits for its result (a workflow already running with this id is an error here). */
export async function executeWorkflow<W extends Workflow>(temporal: TemporalTarget, workflow: W, request: StartRequest<W>): Promise<WorkflowResultType<W>> {
  return withoutUnknownSearchAttributes(temporal.client, optionsFor(temporal, request), (options) => temporal.client.workflow.execute(workflow, options));
}

const RECHECK_MS = 30_000;
const namespaceChecks = new WeakMap<Client, { knows: Promise<boolean>; at: number }>();

/**
 * Search attributes are registered by the worker when it starts (temporal/register-search-attributes.ts).
 * A start must not fail because the namespace does not know them (yet): an API that started
 * before any worker, or Temporal's time-skipping test server, which cannot register any. Whether
 * the client's namespace knows them is asked once (again every 30 s while it does not); until it
 * does, workflows start without search attributes.
 */
async function withoutUnknownSearchAttributes<O extends { typedSearchAttributes?: unknown }, R>(
  client: Client,
  options: O,
  start: (options: O) => Promise<R>,
): Promise<R> {
  if (!options.typedSearchAttributes || (await namespaceKnowsSearchAttributes(client))) return start(options);
  const { typedSearchAttributes: _withheld, ...rest } = options;
  return start(rest as O);
}

function namespaceKnowsSearchAttributes(client: Client): Promise<boolean> {
  const cached = namespaceChecks.get(client);
  if (cached && (Date.now() - cached.at < RECHECK_MS)) return cached.knows;
  const knows = missingSearchAttributes(client, client.options.namespace).then(
    (missing) => missing.length === 0,
    () => false, // an operator service that is not implemented (test server) or not reachable
  );
  namespaceChecks.set(client, { knows, at: Date.now() });
  // Once known, known for good.
  void knows.then((yes) => yes && namespaceChecks.set(client, { knows, at: Number.POSITIVE_INFINITY }));
  return knows;
}
