import type { WorkerOptions } from '@temporalio/worker';
import { z } from 'zod';
import { setVariables } from '../config/set-variables';
import type { AttemptShareLimits } from '../activities/attempt-shares';

const count = (fallback: number) => z.coerce.number().int().min(1).max(10_000).default(fallback);

/**
 * The worker's Temporal slots and pollers, sized for a small machine (2 cores shared with
 * Postgres and the Temporal server; docs/performance.md "Worker tuning"): the SDK's defaults
 * (10 pollers of each kind, 100 activity and 40 workflow-task slots, a sticky cache of about
 * 2,300 workflows on a 4 GiB heap) let one worker hold far more work in memory than two cores
 * can progress. Each can be raised by environment for bigger machines. The sticky cache is also
 * the largest share of the worker's memory that grows with load: 100 keeps the worker within its
 * 300 MiB budget (docs/performance.md "Memory").
 */
const tuningSchema = z.object({
  TEMPORAL_MAX_CACHED_WORKFLOWS: count(100),
  TEMPORAL_WORKFLOW_TASK_POLLS: count(2),
  TEMPORAL_ACTIVITY_TASK_POLLS: count(2),
  TEMPORAL_MAX_WORKFLOW_TASKS: count(10),
  TEMPORAL_MAX_ACTIVITIES: count(20),
  TEMPORAL_MAX_LOCAL_ACTIVITIES: count(20),
  /**
   * How long a stopping worker may drain before it gives up (the SDK's shutdownForceTime): a local
   * activity that keeps failing (bookkeeping retries without a limit, e.g. with the database gone)
   * keeps its workflow task heartbeating, and that task would hold the worker for ever. Below the
   * supervisor's 25 s SIGKILL.
   */
  TEMPORAL_SHUTDOWN_FORCE_SECONDS: z.coerce.number().positive().max(3_600).default(20),
  /**
   * Webhook attempts made as activity tasks at once, on their own queue and worker (retries, and
   * first attempts beyond the inline share): receivers that hang hold these slots only.
   */
  TEMPORAL_MAX_WEBHOOK_ATTEMPTS: count(10),
  /** Webhook attempts run inline at once (decision 0020); absent: half the workflow-task slots. 0: none. */
  TEMPORAL_INLINE_WEBHOOK_ATTEMPTS: z.coerce.number().int().min(0).max(10_000).optional(),
  /**
   * Webhook attempts queued as activity tasks (inline ones are bounded by the inline share) that
   * one endpoint, and one company's endpoints together, may have in flight in this worker: slow
   * receivers of one tenant cannot hold every slot.
   */
  WEBHOOK_MAX_ATTEMPTS_PER_ENDPOINT: count(4),
  WEBHOOK_MAX_ATTEMPTS_PER_COMPANY: count(8),
});

export function workerTuning(env: NodeJS.ProcessEnv = process.env): Partial<WorkerOptions> {
  const tuning = tuningSchema.parse(setVariables(env));
  return {
    maxCachedWorkflows: tuning.TEMPORAL_MAX_CACHED_WORKFLOWS,
    workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: tuning.TEMPORAL_WORKFLOW_TASK_POLLS },
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: tuning.TEMPORAL_ACTIVITY_TASK_POLLS },
    maxConcurrentWorkflowTaskExecutions: tuning.TEMPORAL_MAX_WORKFLOW_TASKS,
    maxConcurrentActivityTaskExecutions: tuning.TEMPORAL_MAX_ACTIVITIES,
    maxConcurrentLocalActivityExecutions: tuning.TEMPORAL_MAX_LOCAL_ACTIVITIES,
    shutdownForceTime: tuning.TEMPORAL_SHUTDOWN_FORCE_SECONDS * 1000,
  };
}

/**
 * The webhook-attempt worker's options (worker/create-worker.ts): activity slots of its own, one
 * poller (an attempt waits on its receiver, not on the CPU), the same drain limit.
 */
export function webhookAttemptWorkerTuning(env: NodeJS.ProcessEnv = process.env): Partial<WorkerOptions> {
  const tuning = tuningSchema.parse(setVariables(env));
  return {
    activityTaskPollerBehavior: { type: 'simple-maximum', maximum: 1 },
    maxConcurrentActivityTaskExecutions: tuning.TEMPORAL_MAX_WEBHOOK_ATTEMPTS,
    shutdownForceTime: tuning.TEMPORAL_SHUTDOWN_FORCE_SECONDS * 1000,
  };
}

/**
 * How many webhook attempts the worker runs inline (as local activities) at once. Each holds a
 * workflow-task slot while its receiver answers, so some slots must stay free for every other
 * workflow: fewer than TEMPORAL_MAX_WORKFLOW_TASKS, half of them unless set.
 */
export function inlineWebhookAttempts(env: NodeJS.ProcessEnv = process.env): number {
  const tuning = tuningSchema.parse(setVariables(env));
  const slots = tuning.TEMPORAL_MAX_WORKFLOW_TASKS;
  const inline = tuning.TEMPORAL_INLINE_WEBHOOK_ATTEMPTS ?? Math.floor(slots / 2);
  if (inline >= slots) {
    throw new Error(`TEMPORAL_INLINE_WEBHOOK_ATTEMPTS (${inline}) must be below TEMPORAL_MAX_WORKFLOW_TASKS (${slots}): inline attempts hold workflow-task slots, and other workflows need some.`);
  }
  return inline;
}

/** Each endpoint's and each company's share of the worker's webhook attempts in flight (activities/attempt-shares.ts). */
export function webhookAttemptShares(env: NodeJS.ProcessEnv = process.env): AttemptShareLimits {
  const tuning = tuningSchema.parse(setVariables(env));
  return { perEndpoint: tuning.WEBHOOK_MAX_ATTEMPTS_PER_ENDPOINT, perCompany: tuning.WEBHOOK_MAX_ATTEMPTS_PER_COMPANY };
}
