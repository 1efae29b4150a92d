import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDependencies } from '../activities';
import { requestIdActivityInterceptor } from './activity-interceptors';

export const workflowsPath = path.resolve(__dirname, '../workflows/index.ts');

export type WorkerSetup = {
  connection: NativeConnection;
  namespace: string;
  dependencies: ActivityDependencies;
  taskQueue: string;
  /** A bundle made by scripts/bundle-workflows.ts; without it the workflows are bundled at start. */
  workflowBundlePath?: string;
  overrides?: Partial<WorkerOptions>;
};

/** One worker that runs every workflow and activity; new capabilities plug into workflows/ and activities/. */
export function createWorker(setup: WorkerSetup): Promise<Worker> {
  const workflowSource = setup.workflowBundlePath
    ? { workflowBundle: { code: readFileSync(setup.workflowBundlePath, 'utf8') } }
    : { workflowsPath };
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities: createActivities(setup.dependencies),
    ...workflowSource,
    // workflowModules only matter when the worker bundles; a prebuilt bundle includes them (scripts/bundle-workflows.ts).
    interceptors: { workflowModules: [workflowsPath], activity: [requestIdActivityInterceptor] },
    ...setup.overrides,
  });
}
