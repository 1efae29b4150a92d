import test from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { fixture, upload, waitForImport } from '../support/ingestion';
import { startReceiver, verifiedEvents } from '../support/receiver';
import { startTestWorker, type TestWorker } from '../support/worker';
import { eventually } from '../support/eventually';
import { workflowIdsFor } from '../../workflows/messages';
import { FAKE_ALEGRA_EMAIL, FAKE_ALEGRA_TOKEN, FAKE_CATEGORY_ID, startFakeAlegra, type FakeAlegra } from '../../testing/fake-accounting/alegra';
import { startFakeErp, type FakeErp } from '../../testing/fake-accounting/generic-erp';

// Integrations → export request → workflow → fake Alegra / fake ERP → export.succeeded / export.failed,
// on the Temporal dev server with the real worker.
let api: TestApi;
let worker: TestWorker;
let alegra: FakeAlegra;
let erp: FakeErp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret: string;
let key: string;
let company: { id: number };
let invoiceId: number;

const COMPLETED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;

test.before(async () => {
  // The 2019 fixture still has a 16 % IVA line, so this Alegra account has that rate too.
  alegra = await startFakeAlegra({
    taxes: [
      { id: '1', name: 'IVA 19%', percentage: '19.00', type: 'IVA', status: 'active' },
      { id: '2', name: 'IVA 16%', percentage: '16.00', type: 'IVA', status: 'active' },
      { id: '3', name: 'IVA 5%', percentage: '5.00', type: 'IVA', status: 'active' },
    ],
  });
  erp = await startFakeErp();
  api = await startTestApi({ ALEGRA_BASE_URL: alegra.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  worker = await startTestWorker(api.database, api.config);
  receiver = await startReceiver();
  company = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin' })).key;
  secret = (await call('POST', `/v1/companies/${company.id}/webhooks`, { url: receiver.url, events: [] })).body.secret;
  const accepted = await upload(api.url, key, company.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  const file = await waitForImport(api.url, key, company.id, accepted.body.id);
  invoiceId = file.documents[0].id;
});
test.after.always(async () => {
  await worker?.stop();
  await receiver?.close();
  await api?.close();
  await alegra?.close();
  await erp?.close();
});

async function call(method: string, path: string, body?: unknown, as = key) {
  const response = await fetch(`${api.url}${path}`, {
    method,
    headers: { ...bearer(as), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, any>) : (null as any) };
}

function exportEvents() {
  return verifiedEvents(receiver.received, secret).filter((event) => event.type.startsWith('export.'));
}

const eventFor = (exportId: number) => eventually(() => exportEvents().find((event) => event.data.id === exportId), 90_000);

let sequence = 0;
/** A purchase invoice with the parsed parts an export needs, as the importer stores them. */
async function insertInvoice(): Promise<number> {
  sequence += 1;
  const [row] = await api.database.db('documents').insert({
    company_id: company.id,
    document_type: 'electronic_invoice',
    kind: 'purchase',
    number: `FE-EXP-${sequence}`,
    cufe: `cufe-export-${sequence}-${Date.now()}`,
    issued_at: new Date('2026-11-20T15:00:00Z'),
    sub_total: '100.00', vat: '19.00', total: '119.00', currency: 'COP',
    supplier: JSON.stringify({ idNumber: '800197268', dv: '4', idType: '31', name: 'DIAN', email: null, phone: null, address: null, city: null, countryCode: 'CO' }),
    lines: JSON.stringify([{ id: '1', description: 'Servicio', quantity: '1', unitCode: null, unitPrice: '100.00', lineExtensionAmount: '100.00',
      taxes: [{ schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '100.00', taxAmount: '19.00' }] }]),
  }).returning('id');
  return row.id as number;
}

test.serial('integrations: created with sealed credentials that are never shown; names are unique; bad config is refused', async (t) => {
  const created = await call('POST', `/v1/companies/${company.id}/integrations`, {
    name: 'alegra', provider: 'alegra', credentials: { email: FAKE_ALEGRA_EMAIL, token: FAKE_ALEGRA_TOKEN }, settings: { category_id: FAKE_CATEGORY_ID },
  });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.like(created.body, { name: 'alegra', provider: 'alegra', company_id: company.id, settings: { category_id: FAKE_CATEGORY_ID } });
  t.false(JSON.stringify(created.body).includes(FAKE_ALEGRA_TOKEN));
  t.is(created.body.credentials, undefined);

  const stored = await api.database.db('integrations').where({ id: created.body.id }).first();
  t.false(Buffer.from(stored.credentials_encrypted).toString('utf8').includes(FAKE_ALEGRA_TOKEN), 'sealed at rest');
  t.deepEqual(JSON.parse(api.dependencies.secretBox.open(Buffer.from(stored.credentials_encrypted).toString('utf8'))), { email: FAKE_ALEGRA_EMAIL, token: FAKE_ALEGRA_TOKEN });

  const erpIntegration = await call('POST', `/v1/companies/${company.id}/integrations`, {
    name: 'erp', provider: 'generic_http', credentials: { secret: erp.state.secret }, settings: { url: erp.url },
  });
  t.is(erpIntegration.status, 201, JSON.stringify(erpIntegration.body));
  t.false(JSON.stringify(erpIntegration.body).includes(erp.state.secret));

  const again = await call('POST', `/v1/companies/${company.id}/integrations`, {
    name: 'alegra', provider: 'alegra', credentials: { email: FAKE_ALEGRA_EMAIL, token: 'x' }, settings: { category_id: '1' },
  });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'integration_name_taken');
  const bad = await call('POST', `/v1/companies/${company.id}/integrations`, { name: 'bad', provider: 'alegra', credentials: { email: 'not-an-email' }, settings: {} });
  t.is(bad.status, 400);
  t.is(bad.body.error.code, 'invalid_parameter');
  const unknown = await call('POST', `/v1/companies/${company.id}/integrations`, { name: 'x', provider: 'siigo', credentials: {}, settings: {} });
  t.is(unknown.status, 400);

  const list = await call('GET', `/v1/companies/${company.id}/integrations`);
  t.deepEqual(list.body.data.map((row: { name: string }) => row.name), ['erp', 'alegra']);
  t.false(JSON.stringify(list.body).includes(FAKE_ALEGRA_TOKEN));

  const member = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write'], role: 'member' })).key;
  t.is((await call('POST', `/v1/companies/${company.id}/integrations`, { name: 'm', provider: 'alegra', credentials: {}, settings: {} }, member)).status, 403);
  const temporary = await call('POST', `/v1/companies/${company.id}/integrations`, {
    name: 'temporary', provider: 'generic_http', credentials: { secret: erp.state.secret }, settings: { url: erp.url },
  });
  t.is((await call('DELETE', `/v1/companies/${company.id}/integrations/${temporary.body.id}`)).status, 204);
  t.is((await call('DELETE', `/v1/companies/${company.id}/integrations/${temporary.body.id}`)).status, 404);
});

test.serial('an imported invoice is exported to Alegra: 202 pending, then export.succeeded and the document is synced', async (t) => {
  const accepted = await call('POST', `/v1/companies/${company.id}/invoices/${invoiceId}/export`, { integration: 'alegra' });
  t.is(accepted.status, 202, JSON.stringify(accepted.body));
  t.like(accepted.body, { integration: 'alegra', export_kind: 'electronic_invoice', status: 'pending', external_reference: null, completed_at: null });
  t.is(accepted.body.document.id, invoiceId);
  // Where the outcome shows (no Location before 2026-11-25).
  t.is(accepted.headers.get('location'), `/v1/companies/${company.id}/exports/${accepted.body.id}`);
  t.is((await call('GET', accepted.headers.get('location')!)).body.id, accepted.body.id);

  const event = await eventFor(accepted.body.id);
  t.is(event.type, 'export.succeeded');
  const bill = alegra.state.bills.at(-1)!;
  t.deepEqual(Object.keys(event.data).sort(), ['completed_at', 'document', 'export_kind', 'external_reference', 'id', 'integration', 'status']);
  t.like(event.data, { id: accepted.body.id, integration: 'alegra', export_kind: 'electronic_invoice', status: 'succeeded' });
  t.deepEqual(event.data.document, {
    // DIAN's sample is a habilitación document: exported all the same (decision 0022), and flagged.
    kind: 'electronic_invoice', id: invoiceId, document_type: 'electronic_invoice', code_scheme: 'CUFE', dian_environment: 'testing', warnings: [],
    cufe: '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694',
  });
  t.deepEqual(event.data.external_reference, { id: bill.id, number: 'SETP990000002', name: 'DIAN' });
  t.regex(event.data.completed_at, COMPLETED_AT);
  t.like(bill, { date: '2019-06-20', provider: { name: 'DIAN', identification: '800197268' } });

  const invoice = (await call('GET', `/v1/companies/${company.id}/invoices/${invoiceId}`)).body;
  t.true(invoice.synced);
  t.truthy(invoice.synced_at);
  t.like(invoice.export, { integration: 'alegra', external_id: bill.id, external_number: 'SETP990000002', external_name: 'DIAN', marked_manually: false });
  t.truthy(invoice.export.exported_at);

  const record = (await call('GET', `/v1/companies/${company.id}/exports/${accepted.body.id}`)).body;
  t.deepEqual(record, event.data);
});

test.serial('exporting again is 409 already_exported; with force it is exported again (here to the signed generic ERP)', async (t) => {
  const refused = await call('POST', `/v1/companies/${company.id}/invoices/${invoiceId}/export`, { integration: 'alegra' });
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'already_exported');

  const forced = await call('POST', `/v1/companies/${company.id}/invoices/${invoiceId}/export`, { integration: 'erp', force: true });
  t.is(forced.status, 202);
  const event = await eventFor(forced.body.id);
  t.is(event.type, 'export.succeeded', JSON.stringify(event.data));
  const request = erp.state.requests.at(-1)!;
  t.true(request.verified, 'the ERP verified the Standard Webhooks signature');
  t.is(request.headers['webhook-id'], `export-${forced.body.id}`);
  const stored = [...erp.state.documents.values()].at(-1)!;
  t.deepEqual(event.data.external_reference, { id: stored.id, number: 'CXP-SETP990000002', name: 'DIAN' });
  t.like((stored.payload.document as Record<string, unknown>), { id: invoiceId, number: 'SETP990000002', total: '14024.07' });
  const invoice = (await call('GET', `/v1/companies/${company.id}/invoices/${invoiceId}`)).body;
  t.like(invoice.export, { integration: 'erp', external_id: stored.id });
});

test.serial('one pending export per document: 409 export_in_progress', async (t) => {
  const id = await insertInvoice();
  const [pending] = await api.database.db('exports').insert({ company_id: company.id, document_id: id, integration: 'alegra' }).returning('id');
  const refused = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'alegra', force: true });
  t.is(refused.status, 409);
  t.is(refused.body.error.code, 'export_in_progress');
  // Nor by hand: the pending posting would make a second entry in the ERP.
  const manual = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export/manual`, { integration: 'alegra', external_id: 'M-1', external_number: 'M-1', force: true });
  t.is(manual.status, 409);
  t.is(manual.body.error.code, 'export_in_progress');
  // That pending row had no workflow: the 409 started it. Let it end, so its posting cannot land in a later test's count.
  await eventFor(Number(pending.id));
  const invoice = await api.database.db('documents').where({ id }).first();
  t.not(invoice.export_external_id, 'M-1', 'the refused manual reference was not written');
});

test.serial('bad requests: unknown integration, not an electronic invoice, bad body', async (t) => {
  const id = await insertInvoice();
  const unknown = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'siigo' });
  t.is(unknown.status, 404, 'a schema-valid name the company does not have is an unknown resource');
  t.is(unknown.body.error.param, 'integration');
  t.is((await call('POST', `/v1/companies/${company.id}/invoices/99999999/export`, { integration: 'alegra' })).status, 404);
  const [note] = await api.database.db('documents').insert({ company_id: company.id, document_type: 'credit_note', issued_at: new Date() }).returning('id');
  t.is((await call('POST', `/v1/companies/${company.id}/invoices/${note.id}/export`, { integration: 'alegra' })).status, 404);
  t.is((await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'alegra', force: 'yes' })).status, 400);
  // Ids that are no positive JSON integers are told so in words of their own, not zod's
  // "document_ids: Invalid input: expected number, received string." (or "Too small: …>=1").
  for (const documentId of [String(id), 0, 1.5]) {
    const bulk = await call('POST', `/v1/companies/${company.id}/exports`, { integration: 'alegra', document_ids: [documentId] });
    t.is(bulk.status, 400, String(documentId));
    t.is(bulk.body.error.param, 'document_ids');
    t.is(bulk.body.error.message, 'document_ids must list positive integer ids: JSON numbers from 1 to 9007199254740991.', String(documentId));
  }
  const readOnly = (await seedKey(api.database, { scopes: ['documents:read'] })).key;
  t.is((await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'alegra' }, readOnly)).status, 403);
});

test.serial('a manual export records the reference without posting and without an event', async (t) => {
  const id = await insertInvoice();
  const requestsBefore = alegra.state.requests.length + erp.state.requests.length;
  const marked = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export/manual`, {
    integration: 'alegra', external_id: 'A-77', external_number: 'FP-77', external_name: 'DIAN',
  });
  t.is(marked.status, 200, JSON.stringify(marked.body));
  t.is(marked.body.id, id);
  t.true(marked.body.synced);
  t.like(marked.body.export, { integration: 'alegra', external_id: 'A-77', external_number: 'FP-77', external_name: 'DIAN', marked_manually: true });
  t.is(alegra.state.requests.length + erp.state.requests.length, requestsBefore, 'nothing posted');
  t.is(await api.database.db('exports').where({ document_id: id }).first(), undefined);
  // An event would be published within a second or two; none may come.
  await new Promise((resolve) => setTimeout(resolve, 2000));
  t.false(exportEvents().some((event) => event.data.document?.id === id));
  t.is((await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'alegra' })).body.error.code, 'already_exported');
  // A second reference by hand replaces the first only with force, as an automatic export does.
  const again = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export/manual`, { integration: 'erp', external_id: 'E-1', external_number: 'E-1' });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'already_exported');
  const forced = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export/manual`, { integration: 'erp', external_id: 'E-1', external_number: 'E-1', force: true });
  t.is(forced.status, 200);
  t.like(forced.body.export, { integration: 'erp', external_id: 'E-1', marked_manually: true });
});

test.serial('bulk export: accepted documents start, refused ones are listed with their code', async (t) => {
  const [a, b] = [await insertInvoice(), await insertInvoice()];
  const exported = await insertInvoice();
  await call('POST', `/v1/companies/${company.id}/invoices/${exported}/export/manual`, { integration: 'erp', external_id: '1', external_number: '1' });
  const response = await call('POST', `/v1/companies/${company.id}/exports`, { integration: 'alegra', document_ids: [a, b, exported, 99999999] });
  t.is(response.status, 202, JSON.stringify(response.body));
  t.deepEqual(response.body.data.map((record: { document: { id: number } }) => record.document.id), [a, b]);
  t.deepEqual(response.body.errors.map((error: { document_id: number; code: string }) => [error.document_id, error.code]), [[exported, 'already_exported'], [99999999, 'not_found']]);
  for (const record of response.body.data) {
    const event = await eventFor(record.id);
    t.is(event.type, 'export.succeeded', JSON.stringify(event.data));
  }
  const list = await call('GET', `/v1/companies/${company.id}/exports?limit=2`);
  t.deepEqual(list.body.data.map((record: { id: number }) => record.id), response.body.data.map((record: { id: number }) => record.id).reverse());
  t.true(list.body.has_more);
  t.is((await call('POST', `/v1/companies/${company.id}/exports`, { integration: 'alegra', document_ids: [] })).status, 400);
});

test.serial('a validation error is not retried: export.failed with validation_failed after one attempt', async (t) => {
  const id = await insertInvoice();
  alegra.failNext(1, 400, undefined, { message: 'La fecha no es válida', code: 400 });
  const before = alegra.state.requests.length;
  const accepted = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'alegra' });
  const event = await eventFor(accepted.body.id);
  t.is(event.type, 'export.failed');
  t.like(event.data, { id: accepted.body.id, status: 'failed', external_reference: null });
  t.is(event.data.error.code, 'validation_failed');
  t.regex(event.data.error.message, /La fecha no es válida/);
  t.regex(event.data.completed_at, COMPLETED_AT);
  t.is(alegra.state.requests.length - before, 1, 'one request, no retry');
  t.like(await api.database.db('exports').where({ id: accepted.body.id }).first(), { attempts: 1, status: 'failed', error_code: 'validation_failed' });
  const invoice = (await call('GET', `/v1/companies/${company.id}/invoices/${id}`)).body;
  t.false(invoice.synced);
  t.is(invoice.export, null);
  t.is(exportEvents().filter((e) => e.data.id === accepted.body.id).length, 1);
});

test.serial('an ERP refusal whose message holds a NUL ends export.failed with the message as plain text (recording it failed for ever, the export stayed pending)', async (t) => {
  const id = await insertInvoice();
  erp.failNext(1, 422, undefined, JSON.stringify({ message: 'bad\u0000thing \ud800 here', code: 'X' }));
  const accepted = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'erp' });
  t.is(accepted.status, 202);
  const event = await eventFor(accepted.body.id);
  t.is(event.type, 'export.failed');
  t.is(event.data.error.code, 'validation_failed');
  t.regex(event.data.error.message, /bad thing \uFFFD here/);
  t.like(await api.database.db('exports').where({ id: accepted.body.id }).first(), { status: 'failed', error_code: 'validation_failed' });
  t.is((await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'erp' })).status, 202, 'no export left in progress');
});

test.serial('an export recorded but never started (the API died between the two) is started by the next request for its document, which is 409; it ends with its event', async (t) => {
  const id = await insertInvoice();
  const stranded = await api.database.repositories.exports.insertPending({ companyId: company.id, documentId: id, integration: 'erp', forced: false });
  const again = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'erp' });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'export_in_progress');
  const event = await eventFor(stranded.id);
  t.is(event.type, 'export.succeeded', JSON.stringify(event.data));
  t.like(await api.database.db('exports').where({ id: stranded.id }).first(), { status: 'succeeded' });
  // A second conflict while it runs, or after, starts nothing again.
  t.is((await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'erp' })).body.error.code, 'already_exported');
  t.is(exportEvents().filter((e) => e.data.id === stranded.id).length, 1);
});

test.serial("an operator's cancel of an export waiting to retry: export.failed with code cancelled, once, and nothing posted again", async (t) => {
  const id = await insertInvoice();
  alegra.failNext(1, 503);
  const before = alegra.state.requests.length;
  const accepted = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'alegra' });
  t.is(accepted.status, 202);
  // The first attempt answered 503: the next one is 5 s away (OUTAGE_TOLERANT_RETRY_POLICY). Cancel now,
  // as docs/operations.md's runbook does with `temporal workflow cancel`.
  await eventually(() => (alegra.state.requests.length > before ? true : undefined));
  const workflowId = workflowIdsFor(api.config.temporal.taskQueue).exportDocument(accepted.body.id);
  await api.temporal.client.workflow.getHandle(workflowId).cancel();

  const event = await eventFor(accepted.body.id);
  t.is(event.type, 'export.failed');
  t.like(event.data, { id: accepted.body.id, status: 'failed', external_reference: null, error: { code: 'cancelled' } });
  t.like((await call('GET', `/v1/companies/${company.id}/exports/${accepted.body.id}`)).body, { status: 'failed', error: { code: 'cancelled' } });
  // Past the retry's due time: no second post, no second event, the invoice not synced.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  t.is(alegra.state.requests.length - before, 1);
  t.is(exportEvents().filter((e) => e.data.id === accepted.body.id).length, 1);
  t.false((await call('GET', `/v1/companies/${company.id}/invoices/${id}`)).body.synced);
});
