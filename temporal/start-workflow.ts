import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowOptions, type WorkflowSignalWithStartOptions, type WorkflowStartOptions } from '@temporalio/client';
import type { SignalDefinition, WithWorkflowArgs, Workflow, WorkflowResultType } from '@temporalio/common';

/** Where workflows start: the Temporal client and the deployment's task queue. */
export type TemporalTarget = { client: Client; taskQueue: string };

/**
 * One start: the workflow id (from workflows/messages.ts), the workflow's own arguments (checked
 * against the workflow function) and any further per-start option (timeouts, memo, search
 * attributes). The task queue comes from the target.
 */
export type StartRequest<W extends Workflow> = WithWorkflowArgs<W, { workflowId: string } & Omit<WorkflowOptions, 'workflowId' | 'taskQueue'>>;

export type SignalWithStartRequest<W extends Workflow, SignalArgs extends unknown[]> = StartRequest<W> & {
  signal: SignalDefinition<SignalArgs>;
  signalArgs: SignalArgs;
};

/**
 * Every workflow the services start goes through this module: the workflow is passed as the
 * function itself (so the compiler checks the arguments) and options every start shares are
 * added here, in one place.
 */
function optionsFor<W extends Workflow>(temporal: TemporalTarget, request: StartRequest<W>): WorkflowStartOptions<W> {
  // The request was checked against W by the caller's signature; TypeScript cannot follow the
  // SDK's conditional args type through a generic spread, hence the assertion.
  return { ...request, taskQueue: temporal.taskQueue } as WorkflowStartOptions<W>;
}

/**
 * Starts a workflow. Workflow ids are idempotency keys: when a workflow with this id is already
 * running, nothing happens and the answer is false (a retried call started it earlier).
 */
export async function startWorkflow<W extends Workflow>(temporal: TemporalTarget, workflow: W, request: StartRequest<W>): Promise<boolean> {
  try {
    await temporal.client.workflow.start(workflow, optionsFor(temporal, request));
    return true;
  } catch (error) {
    if (error instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw error;
  }
}

/** Signals a workflow, starting it first with the request's arguments if it is not running. */
export async function signalWithStartWorkflow<W extends Workflow, SignalArgs extends unknown[]>(
  temporal: TemporalTarget,
  workflow: W,
  request: SignalWithStartRequest<W, SignalArgs>,
): Promise<void> {
  const options = { ...optionsFor(temporal, request), signal: request.signal, signalArgs: request.signalArgs };
  await temporal.client.workflow.signalWithStart<W, SignalArgs>(workflow, options as WithWorkflowArgs<W, WorkflowSignalWithStartOptions<SignalArgs>>);
}

/** Starts a workflow and waits for its result (a workflow already running with this id is an error here). */
export async function executeWorkflow<W extends Workflow>(temporal: TemporalTarget, workflow: W, request: StartRequest<W>): Promise<WorkflowResultType<W>> {
  return temporal.client.workflow.execute(workflow, optionsFor(temporal, request));
}
