// Bundle entry: every workflow the worker runs is exported from here.
export { systemCheckWorkflow } from './system-check';
export { publishEventWorkflow } from './publish-event';
export { webhookDeliveryWorkflow, webhookDeliveryWorkflowV2, webhookDeliveryWorkflowV3 } from './webhook-delivery';
export { webhookEndpointWorkflow } from './webhook-endpoint';
export { purgeWebhookHistoryWorkflow } from './purge-webhook-history';
export { repairUnstartedDeliveriesWorkflow } from './repair-unstarted-deliveries';
export { recountUncountedFailuresWorkflow } from './recount-uncounted-failures';
export { resumeStrandedWorkWorkflow } from './resume-stranded-work';
export { purgeUnimportableMailWorkflow } from './purge-unimportable-mail';
export { purgeIdempotentRequestsWorkflow } from './purge-idempotent-requests';
export { importFileWorkflow, importFileWorkflowV2, importFileWorkflowV3, resumeUnfinishedImportsWorkflow } from './import-file';
export { exportDocumentWorkflow, exportDocumentWorkflowV2 } from './export-document';
export { dianEventWorkflow } from './dian-event';
export { dianImportWorkflow } from './dian-import';
export { dianEventsSyncWorkflow } from './dian-events-sync';

// Interceptors of every workflow (the bundle is built with this module as an interceptor module).
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { requestIdInterceptors, tracingInterceptors } from './interceptors';
export const interceptors: WorkflowInterceptorsFactory = () => {
  const [requestId, tracing] = [requestIdInterceptors(), tracingInterceptors()];
  // The tracing interceptors come first (outermost): the request id's log attributes and
  // headers are added inside the spans, and both reach every activity.
  return {
    inbound: [...(tracing.inbound ?? []), ...(requestId.inbound ?? [])],
    outbound: [...(tracing.outbound ?? []), ...(requestId.outbound ?? [])],
    internals: [...(tracing.internals ?? []), ...(requestId.internals ?? [])],
  };
};
