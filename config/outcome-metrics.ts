import { Counter, Histogram, register } from 'prom-client';

/**
 * The service's business outcomes as Prometheus series (docs/operations.md, "Metrics"). Labels are
 * low-cardinality enums only (type, outcome, event code, target), never a company, a document or
 * any other id. Each outcome is counted where it is persisted, once per committed change of
 * state: an activity retried after its write committed finds the state already there and counts
 * nothing again (see the callers in db/repositories).
 */

/** A counter in prom-client's default registry (the one every /metrics server of this process serves). */
function counter<L extends string>(name: string, help: string, labelNames: readonly L[] = []): Counter<L> {
  return new Counter({ name, help, labelNames, registers: [register] });
}

const uploads = counter('invoicing_uploads_total', 'Files offered to the service (API upload, e-mail, CLI, DIAN import), by source type and outcome (accepted, replayed, rejected).', ['type', 'outcome']);

const imports = counter('invoicing_imports_total', 'Uploaded files whose import finished, by source type and outcome (imported, failed).', ['type', 'outcome']);

const deliveries = counter('invoicing_webhook_deliveries_total', 'Webhook deliveries that reached a final state, by outcome (delivered, failed).', ['outcome']);

const deliveryAttempts = counter('invoicing_webhook_delivery_attempts_total', 'Webhook delivery attempts recorded, by outcome (succeeded: a 2xx, failed: anything else).', ['outcome']);

const deliveryLatency = new Histogram({
  name: 'invoicing_webhook_delivery_latency_seconds',
  help: 'From an event being recorded (its created_at) to the 2xx answer of the endpoint, retries included.',
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 6 * 3600, 24 * 3600, 3 * 24 * 3600],
  registers: [register],
});

const endpointsDisabled = counter('invoicing_webhook_endpoints_disabled_total', 'Webhook endpoints disabled automatically after too many consecutive failures.');

const dianEvents = counter('invoicing_dian_events_total', 'DIAN events (030, 031, 032, 033, 034) that reached a final state, by event code and outcome (succeeded, failed).', ['event_code', 'outcome']);

const dianImportRuns = counter('invoicing_dian_import_runs_total', 'DIAN import runs that finished, by source (dian_web_service, dian_export_file) and outcome (done, failed).', ['source', 'outcome']);

const dianImportDocuments = counter('invoicing_dian_import_documents_total', 'Documents of finished DIAN import runs, by outcome (electronic_invoice, credit_note: created; skipped: already stored).', ['outcome']);

const exportsDone = counter('invoicing_exports_total', 'Exports to accounting systems that reached a final state, by target (the integration provider) and outcome (succeeded, failed).', ['target', 'outcome']);

const cpuJobs = counter('invoicing_cpu_pool_jobs_total', 'Jobs run in the CPU pool, by job and outcome (completed, failed, time_budget_exceeded, memory_budget_exceeded).', ['job', 'outcome']);

const smtpSessions = counter('invoicing_smtp_sessions_total', 'SMTP sessions of the e-mail intake that ended, by outcome (with_message: at least one message accepted, without_message).', ['outcome']);

const smtpMessages = counter('invoicing_smtp_messages_total', 'Messages (DATA) the e-mail intake answered, by outcome (accepted, no_inbox, over_quota, too_large, temporary_failure).', ['outcome']);

export function countUpload(type: string, outcome: 'accepted' | 'replayed' | 'rejected'): void {
  uploads.inc({ type: type.toLowerCase(), outcome });
}

export function countImport(type: string, outcome: 'imported' | 'failed'): void {
  imports.inc({ type: type.toLowerCase(), outcome });
}

/** One recorded attempt; when it ended the delivery, the final outcome (and, delivered, the emit→receipt latency). */
export function countDeliveryAttempt(attempt: { succeeded: boolean; receivedAt: Date }, delivery: { status: string; eventCreatedAt?: Date } | null): void {
  deliveryAttempts.inc({ outcome: attempt.succeeded ? 'succeeded' : 'failed' });
  if (delivery?.status === 'delivered' && delivery.eventCreatedAt) {
    deliveryLatency.observe(Math.max(0, (attempt.receivedAt.getTime() - delivery.eventCreatedAt.getTime()) / 1000));
  }
  if (delivery && delivery.status !== 'pending') countDelivery(delivery.status === 'delivered' ? 'delivered' : 'failed', 1);
}

export function countDelivery(outcome: 'delivered' | 'failed', count: number): void {
  if (count > 0) deliveries.inc({ outcome }, count);
}

export function countEndpointDisabled(): void {
  endpointsDisabled.inc();
}

export function countDianEvent(eventCode: string, outcome: 'succeeded' | 'failed'): void {
  dianEvents.inc({ event_code: eventCode, outcome });
}

export function countDianImportRun(
  source: string,
  outcome: 'done' | 'failed',
  documents: { electronic_invoices_count?: number; credit_notes_count?: number; skipped_count?: number } = {},
): void {
  dianImportRuns.inc({ source, outcome });
  dianImportDocuments.inc({ outcome: 'electronic_invoice' }, documents.electronic_invoices_count ?? 0);
  dianImportDocuments.inc({ outcome: 'credit_note' }, documents.credit_notes_count ?? 0);
  dianImportDocuments.inc({ outcome: 'skipped' }, documents.skipped_count ?? 0);
}

export function countExport(target: string | undefined, outcome: 'succeeded' | 'failed'): void {
  exportsDone.inc({ target: target ?? 'unknown', outcome });
}

export function countCpuJob(job: string, outcome: 'completed' | 'failed' | 'time_budget_exceeded' | 'memory_budget_exceeded'): void {
  cpuJobs.inc({ job, outcome });
}

export function countSmtpSession(acceptedMessages: number): void {
  smtpSessions.inc({ outcome: acceptedMessages > 0 ? 'with_message' : 'without_message' });
}

/** By the SMTP reply the message got (email-server.ts answers 250, 550, 452, 552 or 451). */
export function countSmtpMessage(replyCode: number): void {
  const outcome = { 250: 'accepted', 550: 'no_inbox', 452: 'over_quota', 552: 'too_large' }[replyCode] ?? 'temporary_failure';
  smtpMessages.inc({ outcome });
}
