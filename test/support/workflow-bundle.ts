import { workflowsPath } from '../../worker/create-worker';

/** The bundle `npm test` built once for this run (scripts/test.ts), if any. */
export const sharedWorkflowBundle = process.env.TEST_WORKFLOW_BUNDLE || undefined;

/**
 * The service's workflows for Worker.create / Worker.runReplayHistories: the shared bundle when
 * `npm test` made one, else bundled from source (about ten seconds of webpack per worker).
 */
export function serviceWorkflows(): { workflowBundle: { codePath: string } } | { workflowsPath: string } {
  return sharedWorkflowBundle ? { workflowBundle: { codePath: sharedWorkflowBundle } } : { workflowsPath };
}
