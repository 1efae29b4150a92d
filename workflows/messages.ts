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

export type DeliveryInput = { deliveryId: number; endpointId: number; eventId: string };

export type EndpointWorkflowInput = { endpointId: number; health?: EndpointHealthState };

export const attemptOutcomeSignal = defineSignal<[AttemptOutcome]>('attemptOutcome');
export const endpointReenabledSignal = defineSignal('endpointReenabled');
export const endpointDeletedSignal = defineSignal('endpointDeleted');
export const endpointHealthQuery = defineQuery<EndpointHealthState>('endpointHealth');

export const workflowIds = {
  publishEvent: (eventId: string) => `event-${eventId}`,
  delivery: (endpointId: number, eventId: string) => `webhook-delivery-${endpointId}-${eventId}`,
  endpoint: (endpointId: number) => `webhook-endpoint-${endpointId}`,
  purgeSchedule: 'purge-webhook-history',
  resumeImportsSchedule: 'resume-unfinished-imports',
  importFile: (fileId: number) => `file-import-${fileId}`,
};
