import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { AttemptOutcome, EndpointHealthState } from '../domain/webhooks/endpoint-health';

/** Inputs, results, signals and ids shared by workflows and the code that starts them. */

export type SystemCheckResult = {
  workflowId: string;
  databaseTime: string;
};

export type PublishEventInput = {
  event: { id: string; companyId: number; type: string; data: unknown };
  /** Only this endpoint (webhook.test); otherwise every enabled endpoint subscribed to the type. */
  onlyEndpointId?: number;
};

export type DeliveryInput = {
  deliveryId: number;
  endpointId: number;
  eventId: string;
  /** Set on a resend: the failed delivery it resends (the workflow id then names the resend). */
  resendOf?: number;
  /** The event's company and type (search attributes; absent on runs started before they were added). */
  companyId?: number;
  eventType?: string;
};

export type EndpointWorkflowInput = {
  endpointId: number;
  health?: EndpointHealthState;
  /** History length after which the entity continues as new (default 5,000; tests use less). */
  historyLimit?: number;
  /** Messages the previous run received while it continued as new, handled first. */
  pending?: EndpointMessage[];
};

/** What the endpoint's entity handles in arrival order (the deletion signal stops it instead). */
export type EndpointMessage = { kind: 'outcome'; outcome: AttemptOutcome } | { kind: 'reenabled' };

/**
 * Patch id (workflows/webhook-delivery.ts, webhook-endpoint.ts): consecutive_failures counts
 * failed deliveries, not failed attempts; delivery runs report only their outcome.
 */
export const COUNT_FAILED_DELIVERIES_PATCH = 'count-failed-deliveries';

/**
 * Patch id (workflows/webhook-endpoint.ts): the entity mirrors whenever it handled a failed
 * delivery, even when the count ends where it began, to mark that failure counted.
 */
export const ACKNOWLEDGE_COUNTED_FAILURES_PATCH = 'acknowledge-counted-failures';

/**
 * Patch id (workflows/webhook-delivery.ts, webhook-endpoint.ts): the short database steps
 * (recordLostAttempt, reportAttemptOutcome, mirrorConsecutiveFailures) run as local activities.
 * Asked where each step runs, so a run that never takes one records no marker.
 */
export const LOCAL_BOOKKEEPING_PATCH = 'local-bookkeeping';

/**
 * Patch id (workflows/webhook-endpoint.ts): the entity continues as new in a workflow task of its
 * own (after a timer) and hands the messages that arrived meanwhile to the next run. Runs before
 * it continued in the task that applied the mirror's result, and could drop an outcome.
 */
export const SETTLE_BEFORE_CONTINUE_AS_NEW_PATCH = 'settle-before-continue-as-new';

export const attemptOutcomeSignal = defineSignal<[AttemptOutcome]>('attemptOutcome');
export const endpointReenabledSignal = defineSignal('endpointReenabled');
export const endpointDeletedSignal = defineSignal('endpointDeleted');
export const endpointHealthQuery = defineQuery<EndpointHealthState>('endpointHealth');

/**
 * Workflow ids derive from database ids, which are only unique within one deployment, so every
 * id starts with the deployment's task queue (two deployments sharing a Temporal namespace
 * already need distinct task queues). A retried start with the same id is a no-op.
 */
export function workflowIdsFor(taskQueue: string) {
  return {
    publishEvent: (eventId: string) => `${taskQueue}/event-${eventId}`,
    /** An original delivery is one per endpoint and event; a resend adds its own delivery id. */
    delivery: (endpointId: number, eventId: string, resendDeliveryId?: number) =>
      `${taskQueue}/webhook-delivery-${endpointId}-${eventId}${resendDeliveryId === undefined ? '' : `-resend-${resendDeliveryId}`}`,
    endpoint: (endpointId: number) => `${taskQueue}/webhook-endpoint-${endpointId}`,
    importFile: (fileId: number) => `${taskQueue}/file-import-${fileId}`,
    exportDocument: (exportId: number) => `${taskQueue}/export-${exportId}`,
    dianEvent: (eventId: number) => `${taskQueue}/dian-event-${eventId}`,
    dianImport: (importId: number) => `${taskQueue}/dian-import-${importId}`,
    dianEventsSync: (documentId: number) => `${taskQueue}/dian-events-sync-${documentId}`,
  };
}

/**
 * The task queue of webhook attempts made as activity tasks (retries, and first attempts beyond
 * the worker's inline share): a worker of their own, with its own slots, polls it
 * (worker/create-worker.ts), so receivers that hang hold only those slots, never the ones
 * imports, exports, DIAN events and the health check need.
 */
export function webhookAttemptQueueOf(taskQueue: string): string {
  return `${taskQueue}-webhook-attempts`;
}

/** Recurring jobs (one schedule per task queue, see worker/schedules.ts). */
export const scheduleIds = {
  purgeWebhookHistory: (taskQueue: string) => `purge-webhook-history-${taskQueue}`,
  resumeUnfinishedImports: (taskQueue: string) => `resume-unfinished-imports-${taskQueue}`,
  purgeUnimportableMail: (taskQueue: string) => `purge-unimportable-mail-${taskQueue}`,
  repairUnstartedDeliveries: (taskQueue: string) => `repair-unstarted-deliveries-${taskQueue}`,
  recountUncountedFailures: (taskQueue: string) => `recount-uncounted-failures-${taskQueue}`,
  purgeIdempotentRequests: (taskQueue: string) => `purge-idempotent-requests-${taskQueue}`,
  resumeStrandedWork: (taskQueue: string) => `resume-stranded-work-${taskQueue}`,
};
