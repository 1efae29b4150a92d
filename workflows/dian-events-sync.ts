import { proxyActivities } from '@temporalio/workflow';
import type { createDianDocumentActivities } from '../activities/dian-documents';

type DianDocumentActivities = ReturnType<typeof createDianDocumentActivities>;

const { syncDianEvents } = proxyActivities<DianDocumentActivities>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes', maximumAttempts: 8 },
});

/**
 * POST …/invoices/{document_id}/dian-events/sync: reads what DIAN has registered against the
 * invoice (GetStatusEvent) into dian_registered_events. Transport failures are retried like
 * events (8 attempts, 5 s doubling to 5 min); the workflow fails if DIAN stays unreachable.
 */
export async function dianEventsSyncWorkflow(input: { documentId: number }): Promise<{ events: number }> {
  return { events: await syncDianEvents(input.documentId) };
}
