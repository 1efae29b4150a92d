import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { FAKE_ALEGRA_EMAIL, FAKE_ALEGRA_TOKEN, FAKE_CATEGORY_ID, startFakeAlegra, type FakeAlegra } from '../../testing/fake-accounting/alegra';
import { startFakeErp, type FakeErp } from '../../testing/fake-accounting/generic-erp';
import { OWN_FIXTURES, upload, waitForImport } from '../support/ingestion';
import { collapse, pdfPagesText } from '../support/pdf-text';
import { startReceiver, verifiedEvents } from '../support/receiver';
import { startTestWorker, type TestWorker } from '../support/worker';
import { reclassifyFromOriginals } from '../../services/reclassify-documents';
import { generateTestPkcs12 } from '../../testing/dian-certificates';

// Issue #12, points 2 and 5, end to end on the dev server with the real worker: POS equivalent
// documents and support documents are imported into the invoices collection with their DIAN type
// and code scheme, refused for DIAN events; a USD invoice's withholdings, allowances, prepayment,
// exchange rate and COP equivalents reach the API, the document.imported event and both exports.
let api: TestApi;
let worker: TestWorker;
let alegra: FakeAlegra;
let erp: FakeErp;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret: string;
let key: string;
let company: { id: number };
const files: Record<string, Record<string, any>> = {};

async function call(method: string, url: string, body?: unknown) {
  const response = await fetch(`${api.url}${url}`, {
    method,
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as Record<string, any>) : (null as any) };
}

const events = (type: string) => verifiedEvents(receiver.received, secret).filter((event) => event.type === type);

test.before(async () => {
  alegra = await startFakeAlegra();
  erp = await startFakeErp();
  api = await startTestApi({ ALEGRA_BASE_URL: alegra.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  worker = await startTestWorker(api.database, api.config);
  receiver = await startReceiver();
  company = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin' })).key;
  secret = (await call('POST', `/v1/companies/${company.id}/webhooks`, { url: receiver.url, events: [] })).body.secret;
  for (const name of ['pos-equivalent.xml', 'support-document.xml', 'withholdings-usd.xml', 'attached-contingency-inc.xml', 'production-tax-rounding.xml']) {
    const accepted = await upload(api.url, key, company.id, { name, bytes: readFileSync(path.join(OWN_FIXTURES, name)) });
    files[name] = await waitForImport(api.url, key, company.id, accepted.body.id);
  }
});
test.after.always(async () => {
  await worker?.stop();
  await receiver?.close();
  await api?.close();
  await alegra?.close();
  await erp?.close();
});

const invoice = async (name: string) => (await call('GET', `/v1/companies/${company.id}/invoices/${files[name].documents[0].id}`)).body;

test.serial('POS and support documents land in invoices with their DIAN type and code scheme, in the file record and document.imported', async (t) => {
  const expected: Record<string, [string, string, string]> = {
    'pos-equivalent.xml': ['pos_equivalent', 'CUDE', '20'],
    'support-document.xml': ['support_document', 'CUDS', '05'],
    'withholdings-usd.xml': ['electronic_invoice', 'CUFE', '01'],
  };
  for (const [name, [type, scheme, code]] of Object.entries(expected)) {
    const file = files[name];
    t.is(file.status, 'DONE', JSON.stringify(file.error));
    t.like(file.documents[0], { kind: 'electronic_invoice', document_type: type, code_scheme: scheme });
    t.like(await invoice(name), { document_type: type, document_type_code: code, code_scheme: scheme });
    const imported = await eventually(() => events('document.imported').find((event) => event.data.id === file.id));
    t.deepEqual(imported.data.documents, file.documents);
  }
});

test.serial('DIAN events are refused with 409 not_eligible_for_events on POS and support documents, before any other check', async (t) => {
  for (const name of ['pos-equivalent.xml', 'support-document.xml']) {
    const response = await call('POST', `/v1/companies/${company.id}/invoices/${files[name].documents[0].id}/dian-events`, { event: '033' });
    t.is(response.status, 409);
    t.is(response.body.error.code, 'not_eligible_for_events');
    t.regex(response.body.error.message, /only on electronic invoices of types 01–04 identified by a CUFE/);
  }
  // The electronic invoice passes the eligibility check and meets the next one (this company has no DIAN settings).
  const eligible = await call('POST', `/v1/companies/${company.id}/invoices/${files['withholdings-usd.xml'].documents[0].id}/dian-events`, { event: '033' });
  t.is(eligible.status, 409);
  t.is(eligible.body.error.code, 'dian_settings_missing');
  t.is(await api.database.db('dian_events').count('* as n').first().then((row) => Number(row?.n)), 0);
});

test.serial('the USD invoice shows withholdings, allowances and charges, prepayment, the exchange rate as written and COP equivalents', async (t) => {
  const body = await invoice('withholdings-usd.xml');
  t.like(body, { currency: 'USD', sub_total: '1000.00', vat: '190.00', total: '1060.00', prepaid_amount: '100.00', allowance_total: '50.00', charge_total: '20.00' });
  t.deepEqual(body.withholdings, [
    { type: 'rete_fuente', tax_scheme_id: '06', tax_scheme_name: 'ReteRenta', percent: '2.50', taxable_amount: '1000.00', amount: '25.00', amount_cop: '100309.25' },
    { type: 'rete_iva', tax_scheme_id: '05', tax_scheme_name: 'ReteIVA', percent: '15.00', taxable_amount: '190.00', amount: '28.50', amount_cop: '114352.55' },
    { type: 'rete_ica', tax_scheme_id: '07', tax_scheme_name: 'ReteICA', percent: '0.966', taxable_amount: '1000.00', amount: '9.66', amount_cop: '38759.49' },
  ]);
  t.is(body.withholding_total, '63.16');
  t.deepEqual(body.allowance_charges, [
    { charge: false, reason_code: '11', reason: 'Descuento por pronto pago', percent: '5.00', amount: '50.00', base_amount: '1000.00' },
    { charge: true, reason_code: null, reason: 'Cargo por envío de medios físicos', percent: '2.00', amount: '20.00', base_amount: '1000.00' },
  ]);
  t.deepEqual(body.prepaid_payments, [
    { id: 'ANT-2026-014', amount: '100.00', received_date: '2026-01-25', paid_date: '2026-01-25', instruction: 'Anticipo recibido por transferencia' },
  ]);
  t.deepEqual(body.exchange_rate, { source_currency: 'USD', target_currency: 'COP', rate: '4012.37', date: '2026-02-10' });
  t.deepEqual(body.cop_equivalents, { sub_total: '4012370.00', vat: '762350.30', tax_total: '762350.30', total: '4253112.20', withholding_total: '253421.29' });

  const support = await invoice('support-document.xml');
  t.deepEqual(support.withholdings.map((entry: { type: string; amount: string; amount_cop: string | null }) => [entry.type, entry.amount, entry.amount_cop]), [
    ['rete_fuente', '40000.00', null],
    ['rete_ica', '9660.00', null],
  ]);
  t.is(support.cop_equivalents, null, 'a COP document needs no COP equivalents');
  t.is(support.exchange_rate, null);
});

test.serial('every tributo and the rounding reach the API and the PDF, so the total adds up as DIAN computes it', async (t) => {
  // A contingency invoice (03) in an AttachedDocument with IVA 19 %, IVA 5 %, INC 8 %, a discount, a charge, an advance and a rounding.
  const file = files['attached-contingency-inc.xml'];
  t.is(file.status, 'DONE', JSON.stringify(file.error));
  t.like(file.documents[0], { document_type: 'contingency_invoice', code_scheme: 'CUFE' });
  const body = await invoice('attached-contingency-inc.xml');
  t.like(body, { document_type_code: '03', sub_total: '700000.00', vat: '90500.00', tax_total: '100100.00', total: '709100.00', payable_rounding_amount: '2.00' });
  t.deepEqual(body.taxes, [
    { tax_scheme_id: '01', tax_scheme_name: 'IVA', percent: '19.00', taxable_amount: '450000.00', amount: '85500.00', per_unit_amount: null, units: null },
    { tax_scheme_id: '01', tax_scheme_name: 'IVA', percent: '5.00', taxable_amount: '100000.00', amount: '5000.00', per_unit_amount: null, units: null },
    { tax_scheme_id: '04', tax_scheme_name: 'INC', percent: '8.00', taxable_amount: '120000.00', amount: '9600.00', per_unit_amount: null, units: null },
  ]);
  const cents = (amount: string) => Math.round(Number(amount) * 100);
  t.is(
    cents(body.sub_total) + cents(body.tax_total) - cents(body.allowance_total) + cents(body.charge_total) - cents(body.prepaid_amount) + cents(body.payable_rounding_amount),
    cents(body.total),
    'PayableAmount = LineExtensionAmount + taxes − allowances + charges − prepayments + rounding',
  );
  const pdf = await fetch(`${api.url}/v1/companies/${company.id}/invoices/${body.id}/pdf`, { headers: bearer(key), redirect: 'manual' });
  t.is(pdf.status, 302);
  const text = collapse((await pdfPagesText(new Uint8Array(await (await fetch(pdf.headers.get('location')!)).arrayBuffer()))).join(' '));
  for (const expected of ['INC (04)', '9.600,00', 'Redondeo', '$ 2,00', '$ 709.100,00']) t.true(text.includes(expected), expected);
});

test.serial('each document says which DIAN environment validated it, and each tributo keeps its own rounding apart from tax_total', async (t) => {
  // ProfileExecutionID 2 (habilitación): DIAN's test set, not a real purchase; until 2026-11-25 only the PDF said so.
  t.like(await invoice('withholdings-usd.xml'), { dian_environment: 'testing', tax_rounding_amount: '0.00' });
  const production = await invoice('production-tax-rounding.xml');
  t.like(production, { dian_environment: 'production', number: 'FEP4410', tax_total: '2424.01', tax_rounding_amount: '0.49', total: '14024.07' });
  const cents = (amount: string) => Math.round(Number(amount) * 100);
  t.is(cents(production.sub_total) + cents(production.tax_total) - cents(production.prepaid_amount), cents(production.total), 'the rounding is not in the total to pay');
  const listed = (await call('GET', `/v1/companies/${company.id}/invoices?limit=200`)).body.data as Record<string, any>[];
  t.is(listed.find((entry) => entry.id === production.id)?.dian_environment, 'production', 'the list says it too');
  // And the uploaded file's summary, where a client first meets the document (document.imported).
  t.is(files['production-tax-rounding.xml'].documents[0].dian_environment, 'production');
  t.is(files['withholdings-usd.xml'].documents[0].dian_environment, 'testing');
  const record = (await call('GET', `/v1/companies/${company.id}/files/${files['withholdings-usd.xml'].id}`)).body;
  t.is(record.documents[0].dian_environment, 'testing');
});

test.serial('both exports carry what accountants book: the generic ERP gets it all, Alegra gets retentions and the exchange rate', async (t) => {
  const id = files['withholdings-usd.xml'].documents[0].id;
  t.is((await call('POST', `/v1/companies/${company.id}/integrations`, { name: 'erp', provider: 'generic_http', credentials: { secret: erp.state.secret }, settings: { url: erp.url } })).status, 201);
  const toErp = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'erp' });
  t.is(toErp.status, 202);
  const erpEvent = await eventually(() => [...events('export.succeeded'), ...events('export.failed')].find((event) => event.data.id === toErp.body.id));
  t.is(erpEvent.type, 'export.succeeded', JSON.stringify(erpEvent.data));
  t.like(erpEvent.data.document, { kind: 'electronic_invoice', id, document_type: 'electronic_invoice', code_scheme: 'CUFE' });
  const sent = [...erp.state.documents.values()].at(-1)!.payload.document as Record<string, any>;
  t.like(sent, { documentType: 'electronic_invoice', codeScheme: 'CUFE', dianEnvironment: 'testing', taxRounding: '0.00', currency: 'USD', total: '1060.00', prepaidAmount: '100.00', withholdingTotal: '63.16' });
  t.deepEqual(sent.exchangeRate, { sourceCurrency: 'USD', targetCurrency: 'COP', rate: '4012.37', date: '2026-02-10' });
  t.deepEqual(sent.copEquivalents, { subTotal: '4012370.00', vat: '762350.30', taxTotal: '762350.30', total: '4253112.20', withholdingTotal: '253421.29' });
  t.deepEqual(sent.withholdings.map((entry: { type: string; amountCop: string }) => [entry.type, entry.amountCop]), [
    ['rete_fuente', '100309.25'], ['rete_iva', '114352.55'], ['rete_ica', '38759.49'],
  ]);
  t.is(sent.allowanceCharges.length, 2);
  // Each line says whether it is a free item (a muestra gratis, booked on its reference price): none here.
  t.true(sent.lines.length > 0);
  t.deepEqual([...new Set(sent.lines.map((line: { freeOfCharge?: boolean; referencePrice?: string | null }) => `${line.freeOfCharge}/${line.referencePrice}`))], ['false/null']);

  t.is((await call('POST', `/v1/companies/${company.id}/integrations`, {
    name: 'alegra', provider: 'alegra', credentials: { email: FAKE_ALEGRA_EMAIL, token: FAKE_ALEGRA_TOKEN }, settings: { category_id: FAKE_CATEGORY_ID },
  })).status, 201);
  const toAlegra = await call('POST', `/v1/companies/${company.id}/invoices/${id}/export`, { integration: 'alegra', force: true });
  t.is(toAlegra.status, 202);
  const alegraEvent = await eventually(() => [...events('export.succeeded'), ...events('export.failed')].find((event) => event.data.id === toAlegra.body.id));
  t.is(alegraEvent.type, 'export.succeeded', JSON.stringify(alegraEvent.data));
  const bill = alegra.state.bills.at(-1)!;
  t.deepEqual(bill.currency, { code: 'USD', exchangeRate: 4012.37 });
  t.deepEqual(bill.retentions, [{ id: '12', amount: 25 }, { id: '13', amount: 28.5 }, { id: '14', amount: 9.66 }]);
});

test.serial('documents imported before the type was recorded are reclassified from their stored originals', async (t) => {
  // What migrations 20261123080000 and 20261125120000 left on rows imported before them: invoices as electronic_invoice/CUFE, no type code, no extras.
  const legacy = { dian_document_type: 'electronic_invoice', code_scheme: 'CUFE', dian_type_code: null, dian_environment: null, taxes: null, payable_rounding_amount: null, withholdings: null, allowance_charges: null, prepaid_payments: null, prepaid_amount: null, exchange_rate: null, exchange_source_currency: null, exchange_target_currency: null, exchange_rate_date: null };
  const ids = ['pos-equivalent.xml', 'support-document.xml', 'withholdings-usd.xml'].map((name) => files[name].documents[0].id as number);
  await api.database.db('documents').whereIn('id', ids).update(legacy);
  // Imported between 20261125120000 and 20261125140000: its taxes were read, its environment not.
  const betweenMigrations = files['production-tax-rounding.xml'].documents[0].id as number;
  await api.database.db('documents').where({ id: betweenMigrations }).update({ dian_environment: null });
  t.is((await invoice('production-tax-rounding.xml')).dian_environment, null);
  const [broken] = await api.database.db('documents')
    .insert({ company_id: company.id, document_type: 'electronic_invoice', kind: 'purchase', number: 'X1', cufe: 'c'.repeat(96), issued_at: new Date(), original_blob_key: 'missing/blob.xml', original_content_type: 'application/xml', ...legacy })
    .returning('id');
  const posBefore = await call('POST', `/v1/companies/${company.id}/invoices/${ids[0]}/dian-events`, { event: '033' });
  t.is(posBefore.body.error.code, 'dian_settings_missing', 'an unclassified legacy POS ticket passes the eligibility check');

  const outcome = await reclassifyFromOriginals({ repositories: api.dependencies.repositories, blobStore: api.dependencies.blobStore }, { batchSize: 2 });
  t.is(outcome.examined, 5);
  t.is(outcome.updated, 4);
  t.deepEqual(outcome.unreadable.map((entry) => entry.id), [broken.id]);

  t.like(await invoice('pos-equivalent.xml'), { document_type: 'pos_equivalent', document_type_code: '20', code_scheme: 'CUDE' });
  t.like(await invoice('support-document.xml'), { document_type: 'support_document', code_scheme: 'CUDS', withholding_total: '49660.00' });
  t.like(await invoice('withholdings-usd.xml'), { document_type_code: '01', dian_environment: 'testing', exchange_rate: { rate: '4012.37' }, cop_equivalents: { total: '4253112.20' } });
  t.like(await invoice('production-tax-rounding.xml'), { dian_environment: 'production', tax_rounding_amount: '0.49' });
  const posAfter = await call('POST', `/v1/companies/${company.id}/invoices/${ids[0]}/dian-events`, { event: '033' });
  t.is(posAfter.body.error.code, 'not_eligible_for_events');
  t.deepEqual(await reclassifyFromOriginals({ repositories: api.dependencies.repositories, blobStore: api.dependencies.blobStore }), {
    examined: 1, updated: 0, unreadable: outcome.unreadable,
  }, 'idempotent: only the unreadable one is looked at again');
});

test.serial('an event on an invoice of the other DIAN environment is refused with 409 dian_environment_mismatch, nothing recorded', async (t) => {
  // Runs last: it gives the company DIAN settings. Habilitación's catalogue holds only documents
  // validated there (ProfileExecutionID 2), production's only production ones (1).
  const certificate = generateTestPkcs12('clave-p12');
  const settings = (environment: string) =>
    call('PUT', `/v1/companies/${company.id}/dian-settings`, {
      environment, software_id: 'c7f0b5a4-1111-4a0e-9d8b-000000000002', software_pin: '12345',
      certificate_p12_base64: certificate.p12.toString('base64'), certificate_password: certificate.password,
    });
  const issuer = { id_type: '13', id_number: '79845123', first_name: 'Ana', family_name: 'Rojas', job_title: 'Almacenista' };
  const send = (name: string) => call('POST', `/v1/companies/${company.id}/invoices/${files[name].documents[0].id}/dian-events`, { event: '030', issuer });

  t.is((await settings('habilitacion')).status, 200);
  const productionInvoice = await send('production-tax-rounding.xml');
  t.is(productionInvoice.status, 409, JSON.stringify(productionInvoice.body));
  t.is(productionInvoice.body.error.code, 'dian_environment_mismatch');
  t.regex(productionInvoice.body.error.message, /production environment, cbc:ProfileExecutionID 1.*habilitacion/);

  t.is((await settings('produccion')).status, 200);
  const testingInvoice = await send('withholdings-usd.xml');
  t.is(testingInvoice.status, 409, JSON.stringify(testingInvoice.body));
  t.is(testingInvoice.body.error.code, 'dian_environment_mismatch');
  t.regex(testingInvoice.body.error.message, /habilitación \(testing\) environment, cbc:ProfileExecutionID 2.*produccion/);
  t.is(await api.database.db('dian_events').count('* as n').first().then((row) => Number(row?.n)), 0);
});
