import test from 'ava';
import { bearer, seedCompany, seedKey } from '../support/api';
import { startDeduplicatingErp } from '../support/deduplicating-erp';
import { eventually } from '../support/eventually';
import { FAKE_ALEGRA_EMAIL, FAKE_ALEGRA_TOKEN, FAKE_CATEGORY_ID, startFakeAlegra, type FakeAlegra } from '../../testing/fake-accounting/alegra';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';
import { workflowIdsFor } from '../../workflows/messages';
import { whilePostgresRefusesUpdates } from '../support/postgres-disk-full';

// Automatic export retries in virtual time (Java time-skipping server): transient failures are
// retried with backoff and produce no event; only the outcome does.
let world: WebhookWorld;
let alegra: FakeAlegra;
let key: string;
let company: { id: number };
let sequence = 0;

test.before(async () => {
  alegra = await startFakeAlegra();
  world = await startWebhookWorld({ ALEGRA_BASE_URL: alegra.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  company = await seedCompany(world.database, 'Exportaciones S.A.S.', '900108281');
  key = (await seedKey(world.database, { scopes: ['documents:read', 'documents:write'], role: 'admin' })).key;
  const created = await call('POST', `/v1/companies/${company.id}/integrations`, {
    name: 'alegra', provider: 'alegra', credentials: { email: FAKE_ALEGRA_EMAIL, token: FAKE_ALEGRA_TOKEN }, settings: { category_id: FAKE_CATEGORY_ID },
  });
  if (created.status !== 201) throw new Error(JSON.stringify(created.body));
});
test.after.always(async () => {
  await world?.close();
  await alegra?.close();
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(`${world.apiUrl}${path}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function insertInvoice(): Promise<number> {
  sequence += 1;
  const [row] = await world.database.db('documents').insert({
    company_id: company.id,
    document_type: 'electronic_invoice',
    number: `FE-R-${sequence}`,
    cufe: `cufe-retry-${sequence}`,
    issued_at: new Date('2026-11-20T15:00:00Z'),
    sub_total: '100.00', vat: '19.00', total: '119.00', currency: 'COP',
    supplier: JSON.stringify({ idNumber: '800197268', dv: '4', idType: '31', name: 'DIAN', email: null }),
    lines: JSON.stringify([{ id: '1', description: 'Servicio', quantity: '1', unitCode: null, unitPrice: '100.00', lineExtensionAmount: '100.00',
      taxes: [{ schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '100.00', taxAmount: '19.00' }] }]),
  }).returning('id');
  return row.id as number;
}

/** Requests an export and waits (in virtual time) for its workflow; returns the outcome and the virtual seconds it took. */
async function runExport(integration = 'alegra') {
  const documentId = await insertInvoice();
  const started = await world.env.currentTimeMs();
  const accepted = await call('POST', `/v1/companies/${company.id}/invoices/${documentId}/export`, { integration });
  if (accepted.status !== 202) throw new Error(JSON.stringify(accepted.body));
  const exportId = accepted.body.id as number;
  const handle = world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).exportDocument(exportId));
  const outcome = (await handle.result()) as string;
  const seconds = ((await world.env.currentTimeMs()) - started) / 1000;
  return { exportId, documentId, outcome, seconds, lastAttemptWaitedSeconds: await lastAttemptWait(handle) };
}

/**
 * The virtual seconds from postExport's scheduling to the start of its last attempt, read from
 * the history (a retried activity records one Scheduled and one Started event, the latter with
 * the attempt that ran last), so it counts only the retry waits, not anything the time-skipping
 * server does around the workflow.
 */
async function lastAttemptWait(handle: ReturnType<WebhookWorld['env']['client']['workflow']['getHandle']>): Promise<number> {
  const { events } = await handle.fetchHistory();
  const seconds = (time: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(time?.seconds ?? 0) + (time?.nanos ?? 0) / 1e9;
  const scheduled = events?.find((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'postExport');
  const startedEvent = events?.find((event) => event.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString());
  if (!scheduled || !startedEvent) throw new Error('postExport was not scheduled and started');
  return seconds(startedEvent.eventTime) - seconds(scheduled.eventTime);
}

/** Every export.* event recorded for this export (the events table holds each published event once). */
async function exportEvents(exportId: number) {
  return world.database.db('events').where('type', 'like', 'export.%').whereRaw(`(data->>'id')::bigint = ?`, [exportId]).select('type', 'data');
}

async function settledEvents(exportId: number) {
  await eventually(async () => ((await exportEvents(exportId)).length > 0 ? true : undefined));
  await new Promise((resolve) => setTimeout(resolve, 1500)); // anything else would have been recorded by now
  return exportEvents(exportId);
}

test.serial('503 three times, then success: one export.succeeded and no other export event', async (t) => {
  alegra.failNext(3, 503);
  const run = await runExport();
  t.is(run.outcome, 'succeeded');
  t.true(run.seconds >= 5 + 10 + 20, `retried with backoff (${run.seconds} virtual s)`);
  const events = await settledEvents(run.exportId);
  t.deepEqual(events.map((event) => event.type), ['export.succeeded']);
  t.like(events[0].data, { id: run.exportId, status: 'succeeded', document: { id: run.documentId, kind: 'electronic_invoice' } });
  t.like(await world.database.db('exports').where({ id: run.exportId }).first(), { status: 'succeeded', attempts: 4 });
  t.like(await world.database.db('documents').where({ id: run.documentId }).first(), { synced: true });
});

test.serial('429 with Retry-After: the next attempt waits as long as the server asked', async (t) => {
  alegra.failNext(1, 429, { 'retry-after': '120' });
  const run = await runExport();
  t.is(run.outcome, 'succeeded');
  t.true(run.lastAttemptWaitedSeconds >= 120, `waited ${run.lastAttemptWaitedSeconds} virtual s, not the 5 s of the policy`);
  t.true(run.lastAttemptWaitedSeconds < 300, `but not much longer (${run.lastAttemptWaitedSeconds} s)`);
  const events = await settledEvents(run.exportId);
  t.deepEqual(events.map((event) => event.type), ['export.succeeded']);
  t.like(await world.database.db('exports').where({ id: run.exportId }).first(), { attempts: 2 });
});

test.serial('always 503: after 8 attempts exactly one export.failed with code unavailable', async (t) => {
  alegra.failNext(8, 503);
  try {
    const run = await runExport();
    t.is(run.outcome, 'failed');
    t.true(run.seconds >= 5 + 10 + 20 + 40 + 80 + 160 + 300, `bounded backoff (${run.seconds} virtual s)`);
    const events = await settledEvents(run.exportId);
    t.deepEqual(events.map((event) => event.type), ['export.failed']);
    t.like(events[0].data, { id: run.exportId, status: 'failed', external_reference: null, error: { code: 'unavailable' } });
    t.regex(events[0].data.error.message, /HTTP 503/);
    t.like(await world.database.db('exports').where({ id: run.exportId }).first(), { status: 'failed', attempts: 8, error_code: 'unavailable' });
    t.like(await world.database.db('documents').where({ id: run.documentId }).first(), { synced: false, export_integration: null });
  } finally {
    alegra.state.faults.length = 0;
  }
});

// Postgres refuses to record the booking (disk_full, SQLSTATE 53100, raised by a trigger for the
// first 10 tries) for longer than the export's 8 attempts: a dependency fault, which does not use
// them up. Until 2026-11-25 the 8th attempt ended the export failed although the ERP had booked it,
// and the client's new request, under a new idempotency key, booked it again.
test.serial('Postgres unable to record the booking through 10 attempts: retried past the 8, booked once, one export.succeeded', async (t) => {
  // The 11th request finds the software down: its first retryable failure, 1 of its 8, not the
  // end of the export (Temporal's attempt number, 11 by then, counts the outage's attempts too).
  const erp = await startDeduplicatingErp(() => 0, (index) => index === 10);
  const db = world.database.db;
  try {
    await whilePostgresRefusesUpdates(db, { table: 'exports', condition: "NEW.status = 'succeeded'", tries: 10 }, async () => {
      const created = await call('POST', `/v1/companies/${company.id}/integrations`, {
        name: 'erp-full', provider: 'generic_http',
        credentials: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
        settings: { url: erp.url },
      });
      t.is(created.status, 201, JSON.stringify(created.body));
      const run = await runExport('erp-full');
      t.is(run.outcome, 'succeeded');
      t.deepEqual(erp.received, Array.from({ length: 12 }, () => `export-${run.exportId}`), 'posted at every attempt, with the same idempotency key');
      t.is(erp.booked.size, 1, 'booked once');
      const events = await settledEvents(run.exportId);
      t.deepEqual(events.map((event) => event.type), ['export.succeeded']);
      t.like(await db('exports').where({ id: run.exportId }).first(), { status: 'succeeded', attempts: 12, retryable_failures: 1 });
    });
  } finally {
    await erp.close();
  }
});
