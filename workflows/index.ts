// Bundle entry: every workflow the worker runs is exported from here.
export { systemCheckWorkflow } from './system-check';
export { publishEventWorkflow } from './publish-event';
export { webhookDeliveryWorkflow } from './webhook-delivery';
export { webhookEndpointWorkflow } from './webhook-endpoint';
export { purgeWebhookHistoryWorkflow } from './purge-webhook-history';
export { purgeUnimportableMailWorkflow } from './purge-unimportable-mail';
export { importFileWorkflow, resumeUnfinishedImportsWorkflow } from './import-file';
export { exportDocumentWorkflow } from './export-document';
export { dianEventWorkflow } from './dian-event';
export { dianImportWorkflow } from './dian-import';
export { dianEventsSyncWorkflow } from './dian-events-sync';

// Interceptors of every workflow (the bundle is built with this module as an interceptor module).
import type { WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { requestIdInterceptors } from './interceptors';
export const interceptors: WorkflowInterceptorsFactory = () => requestIdInterceptors();
