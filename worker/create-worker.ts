import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker, type InjectedSinks, type WorkerOptions } from '@temporalio/worker';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import { createActivities, type ActivityDependencies } from '../activities';
import type { Tracing } from '../config/tracing';
import { activityInterceptors } from './activity-interceptors';
import { workerTuning } from './tuning';
import { importFilesMemoryBudget } from '../services/file-memory-budget';

export const workflowsPath = path.resolve(__dirname, '../workflows/index.ts');

export type WorkerSetup = {
  connection: NativeConnection;
  namespace: string;
  dependencies: ActivityDependencies;
  taskQueue: string;
  /** A bundle made by scripts/bundle-workflows.ts; without it the workflows are bundled at start. */
  workflowBundlePath?: string;
  /** On (startTracing), workflows' and activities' spans go to its span processor. */
  tracing?: Tracing;
  overrides?: Partial<WorkerOptions>;
};

/** One worker that runs every workflow and activity; new capabilities plug into workflows/ and activities/. */
export function createWorker(setup: WorkerSetup): Promise<Worker> {
  // Sized from the environment now, so a bad IMPORT_FILES_MEMORY_MB stops the start, not the first import.
  importFilesMemoryBudget();
  const workflowSource = setup.workflowBundlePath
    ? { workflowBundle: { code: readFileSync(setup.workflowBundlePath, 'utf8') } }
    : { workflowsPath };
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities: createActivities(setup.dependencies),
    ...workflowSource,
    // workflowModules only matter when the worker bundles; a prebuilt bundle includes them
    // (scripts/bundle-workflows.ts), and the SDK warns at every start when both are given.
    interceptors: { ...(setup.workflowBundlePath ? {} : { workflowModules: [workflowsPath] }), activity: activityInterceptors(setup.tracing) },
    sinks: workflowSpanSinks(setup.tracing),
    ...workerTuning(),
    ...setup.overrides,
  });
}

/**
 * Workflows make their spans inside the sandbox (workflows/interceptors.ts) and hand them out
 * through the `exporter` sink. With tracing off the sink drops them: it must exist all the same,
 * or every workflow activation would log "unregistered external sink".
 */
export function workflowSpanSinks(tracing: Tracing | undefined): InjectedSinks<OpenTelemetrySinks> {
  if (tracing) return { exporter: makeWorkflowExporter(tracing.spanProcessor, tracing.resource) };
  return { exporter: { export: { fn: () => undefined } } };
}
