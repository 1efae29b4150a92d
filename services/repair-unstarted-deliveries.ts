import type { Repositories } from '../db/repositories';
import type { TemporalTarget } from '../temporal/start-workflow';
import { startDeliveryWorkflows } from './start-deliveries';

export type RepairOptions = {
  /** Only deliveries older than this: a younger one may still be having its workflow started by its publisher. */
  olderThanSeconds: number;
  /** Deliveries read and started per round trip. */
  batchSize?: number;
  /** Deliveries looked at per run at most; the next run goes on. */
  maxPerRun?: number;
};

/** What a run found: deliveries it started, and those whose workflow already existed (running or closed). */
export type RepairReport = { started: number; alreadyStarted: number };

/**
 * Starts the workflows of deliveries that were recorded but never started: the API's emitEvent
 * commits the event and its pending deliveries, then starts their workflows, and a process that
 * dies (or a Temporal that is unreachable) in between leaves them pending with no workflow
 * (docs/decisions/0011-lean-webhook-pipeline.md). Every company's pending deliveries with no
 * attempt older than `olderThanSeconds` are started under their usual workflow id with
 * REJECT_DUPLICATE, so a delivery whose workflow exists in any state is left alone: a running
 * one delivers it, a closed one means the row is the operators' reconciliation's to settle
 * (`invoicing operations reconcile`), and nothing is ever delivered twice by this repair.
 */
export async function repairUnstartedDeliveries(
  deps: { repositories: Repositories; temporal: TemporalTarget },
  options: RepairOptions,
): Promise<RepairReport> {
  const { olderThanSeconds, batchSize = 100, maxPerRun = 2000 } = options;
  const report: RepairReport = { started: 0, alreadyStarted: 0 };
  let afterId = 0;
  for (let seen = 0; seen < maxPerRun; ) {
    const batch = await deps.repositories.unfinishedWork.unstartedDeliveries(olderThanSeconds, Math.min(batchSize, maxPerRun - seen), afterId);
    if (batch.length === 0) break;
    const started = await startDeliveryWorkflows(
      deps.temporal,
      batch.map((row) => ({
        deliveryId: row.id,
        endpointId: row.endpoint_id,
        eventId: row.event_id,
        resendOf: row.resend_of ?? undefined,
        companyId: row.company_id,
        eventType: row.event_type,
      })),
    );
    for (const yes of started) report[yes ? 'started' : 'alreadyStarted'] += 1;
    seen += batch.length;
    afterId = batch[batch.length - 1].id;
  }
  return report;
}
