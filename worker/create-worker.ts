import { readFileSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection, Worker, type InjectedSinks, type WorkerOptions } from '@temporalio/worker';
import { makeWorkflowExporter } from '@temporalio/interceptors-opentelemetry/lib/worker';
import type { OpenTelemetrySinks } from '@temporalio/interceptors-opentelemetry/lib/workflow/definitions';
import { createActivities, type ActivityDependencies } from '../activities';
import type { Tracing } from '../config/tracing';
import { activityInterceptors } from './activity-interceptors';
import { webhookAttemptWorkerTuning, workerTuning } from './tuning';
import { webhookAttemptQueueOf } from '../workflows/messages';
import { importFilesMemoryBudget } from '../services/file-memory-budget';

export const workflowsPath = path.resolve(__dirname, '../workflows/index.ts');

/**
 * The workflow modules are evaluated once, into the reusable V8 context's shared module cache
 * (SDK 1.24's `preloadModules`), instead of afresh for every workflow: replayed, an import cost
 * 4.11–4.44 ms of CPU per workflow with them preloaded against 4.94–5.21 ms without, a delivery
 * 8.38–8.65 against 9.23–9.37 (`npm run bench:workflow-replay`, docs/performance.md, session 38).
 * Safe because no module under workflows/ or the domain code it imports keeps state at module
 * scope (a preloaded module's exports are frozen and shared by every workflow);
 * test/workflows/preloaded-modules.test.ts keeps it so.
 */
export const preloadedWorkflowModules = [workflowsPath];

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
  /** Where the tuning is read (worker/tuning.ts); the process's environment unless given. */
  env?: NodeJS.ProcessEnv;
};

/** The service's workers in one process: the main one, and the one of webhook attempts. */
export type ServiceWorkers = {
  main: Worker;
  webhookAttempts: Worker;
  /** Runs both until shutdown(); when one stops with an error, the other is stopped too. */
  run(): Promise<void>;
  shutdown(): void;
};

/**
 * The main worker (createWorker) and, next to it, the one that polls the webhook attempts' own
 * queue (webhookAttemptQueueOf) with slots of its own (TEMPORAL_MAX_WEBHOOK_ATTEMPTS): a
 * tenant's receivers that hang for their 10 s hold those slots, never the main worker's, which
 * imports, exports, DIAN events and the health check need.
 */
export async function createWorkers(setup: WorkerSetup): Promise<ServiceWorkers> {
  // One set of activities for both (one keep-alive agent per receiver, one inline share).
  const activities = createActivities(setup.dependencies);
  const main = await createWorker(setup, activities);
  const webhookAttempts = await Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: webhookAttemptQueueOf(setup.taskQueue),
    activities: { deliverAttempt: activities.deliverAttempt },
    interceptors: { activity: activityInterceptors(setup.tracing) },
    ...webhookAttemptWorkerTuning(setup.env),
  });
  const workers = [main, webhookAttempts];
  const shutdown = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  return {
    main,
    webhookAttempts,
    shutdown,
    async run() {
      const runs = workers.map((worker) => worker.run());
      try {
        await Promise.all(runs);
      } catch (error) {
        shutdown();
        await Promise.allSettled(runs);
        throw error;
      }
    },
  };
}

/** One worker that runs every workflow and activity; new capabilities plug into workflows/ and activities/. */
export function createWorker(setup: WorkerSetup, activities = createActivities(setup.dependencies)): Promise<Worker> {
  // Sized from the environment now, so a bad IMPORT_FILES_MEMORY_MB stops the start, not the first import.
  importFilesMemoryBudget();
  const workflowSource = setup.workflowBundlePath
    ? { workflowBundle: { code: readFileSync(setup.workflowBundlePath, 'utf8') } }
    : { workflowsPath };
  return Worker.create({
    connection: setup.connection,
    namespace: setup.namespace,
    taskQueue: setup.taskQueue,
    activities,
    ...workflowSource,
    // workflowModules only matter when the worker bundles; a prebuilt bundle includes them
    // (scripts/bundle-workflows.ts), and the SDK warns at every start when both are given.
    interceptors: { ...(setup.workflowBundlePath ? {} : { workflowModules: [workflowsPath] }), activity: activityInterceptors(setup.tracing) },
    ...(setup.workflowBundlePath ? {} : { bundlerOptions: { preloadModules: preloadedWorkflowModules } }),
    sinks: workflowSpanSinks(setup.tracing),
    ...workerTuning(setup.env),
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
