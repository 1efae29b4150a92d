import type { Repositories } from '../db/repositories';
import { startIfNeverStarted, type TemporalTarget } from '../temporal/start-workflow';
import { dianEventWorkflow } from '../workflows/dian-event';
import { dianImportWorkflow } from '../workflows/dian-import';
import { exportDocumentWorkflowV2 } from '../workflows/export-document';
import { dianEventStart, dianImportStart, exportStart } from './work-starts';

export type ResumeOptions = {
  /** Only work older than this: a younger record may still be having its workflow started by the API. */
  olderThanSeconds: number;
  /** Records looked at per kind and run (the oldest; those started leave the set, so the next run takes the rest). */
  limit?: number;
};

/** The ids of the records whose workflow this run started, per kind. */
export type ResumeReport = { exports: number[]; dian_events: number[]; dian_imports: number[] };

/**
 * Starts the workflow of every export, DIAN event and DIAN import run that was recorded but never
 * started: the API records the row, then starts its workflow, and an API killed in between (or
 * whose start was lost with a Temporal that was frozen or restarting) leaves it pending with no
 * workflow. Before, only a later request for the same document started a stranded export or
 * event (its 409), so a client that did not retry left it pending for good, and a stranded DIAN
 * import run stayed PENDING for ever. Each is started as the API starts it, with
 * REJECT_DUPLICATE: a record whose workflow exists in any state is left alone (running, it is
 * being done; closed, it is `invoicing operations reconcile`'s to settle), and only records that
 * never ran a step are looked at (an export with no attempt, an event never signed), so one whose
 * workflow Temporal has since forgotten is not started again: nothing is sent to DIAN or posted to
 * an accounting system twice by this resume.
 */
export async function resumeStrandedWork(deps: { repositories: Repositories; temporal: TemporalTarget }, options: ResumeOptions): Promise<ResumeReport> {
  const { olderThanSeconds, limit = 500 } = options;
  const { unfinishedWork } = deps.repositories;
  const queue = deps.temporal.taskQueue;
  const report: ResumeReport = { exports: [], dian_events: [], dian_imports: [] };
  for (const row of await unfinishedWork.pendingExports(olderThanSeconds, limit)) {
    const start = exportStart(queue, { companyId: row.company_id, documentId: row.document_id, exportId: row.id });
    if (await startIfNeverStarted(deps.temporal, exportDocumentWorkflowV2, start)) report.exports.push(row.id);
  }
  for (const row of await unfinishedWork.pendingDianEvents(olderThanSeconds, limit)) {
    const start = dianEventStart(queue, { companyId: row.company_id, documentId: row.document_id, cufe: row.cufe, eventId: row.id, event: row.event });
    if (await startIfNeverStarted(deps.temporal, dianEventWorkflow, start)) report.dian_events.push(row.id);
  }
  for (const row of await unfinishedWork.pendingDianImports(olderThanSeconds, limit)) {
    const start = dianImportStart(queue, { companyId: row.company_id, importId: row.id });
    if (await startIfNeverStarted(deps.temporal, dianImportWorkflow, start)) report.dian_imports.push(row.id);
  }
  return report;
}
