import AdmZip from 'adm-zip';
import test from 'ava';
import { parseUbl } from '../../domain/ubl/parse';
import { bearer } from '../support/api';
import { startDianWorld, type DianWorld } from '../support/dian-world';
import { eventually } from '../support/eventually';
import { fixture } from '../support/ingestion';

// Tax-authority import runs on the dev server against the simulator: by uploaded export (CSV)
// and by date range (the simulator's listing extension); re-runs never duplicate documents.
let world: DianWorld;

test.before(async () => {
  world = await startDianWorld();
});
test.after.always(async () => {
  await world?.close();
});

const cufeOf = (name: string) => parseUbl(fixture(name)).document.cufe;
const runsPath = () => `/v1/companies/${world.company.id}/dian-imports`;

async function waitForRun(id: number) {
  return eventually(async () => {
    const run = await world.call('GET', `${runsPath()}/${id}`);
    return run.body.status === 'DONE' || run.body.status === 'ERROR' ? run.body : undefined;
  }, 120_000);
}

async function documentCount(): Promise<number> {
  const row = await world.api.database.db('documents').where({ company_id: world.company.id }).count<{ count: string }[]>('id as count').first();
  return Number(row?.count);
}

test.serial('a run from an uploaded "documentos recibidos" CSV imports the listed invoices through the upload path', async (t) => {
  const csv = [
    'Tipo de documento;CUFE/CUDE;Folio;Prefijo;Fecha Emisión;NIT Emisor',
    `Factura electrónica;${cufeOf('invoice-signed-setp.xml')};990000002;SETP;20-06-2019;800197268`,
    `Nota crédito electrónica;${cufeOf('creditnote-usd.xml')};3;NC;21-06-2019;800197268`,
  ].join('\n');
  const form = new FormData();
  form.append('begin_date', '2019-01-01');
  form.append('end_date', '2019-12-31');
  form.append('document_type', 'invoice');
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'documentos-recibidos.csv');
  const response = await fetch(`${world.api.url}${runsPath()}`, { method: 'POST', headers: bearer(world.key), body: form });
  const accepted = (await response.json()) as Record<string, any>;
  t.is(response.status, 202, JSON.stringify(accepted));
  t.deepEqual(Object.keys(accepted).sort(), ['begin_date', 'credit_notes_count', 'document_type', 'electronic_invoices_count', 'end_date', 'found_count', 'id', 'skipped_count', 'source', 'status'].sort());
  t.like(accepted, { source: 'dian_export_file', document_type: 'invoice', begin_date: '2019-01-01', end_date: '2019-12-31' });
  // Where the run's outcome shows (no Location before 2026-11-25).
  t.is(response.headers.get('location'), `${runsPath()}/${accepted.id}`);

  const done = await waitForRun(accepted.id);
  t.like(done, { status: 'DONE', found_count: 1, electronic_invoices_count: 1, credit_notes_count: 0, skipped_count: 0 });
  const completed = await eventually(() => world.events('dian_import.completed').find((event) => event.data.id === accepted.id));
  t.deepEqual(completed.data, done);
  const files = await world.api.database.db('uploaded_files').where({ dian_importation_id: accepted.id });
  t.is(files.length, 1);
  t.like(files[0], { type: 'DIAN', status: 'DONE', file_name: `${cufeOf('invoice-signed-setp.xml')}.xml` });
  const imported = await eventually(() => world.events('document.imported').find((event) => event.data.id === files[0].id));
  t.is(imported.data.dian_importation_id, accepted.id);
});

test.serial('a run from an uploaded file keeps its Idempotency-Key: a retry replays the first answer, another file with the key is 409', async (t) => {
  const post = (csv: string, key: string) => {
    const form = new FormData();
    form.append('begin_date', '2019-01-01');
    form.append('end_date', '2019-12-31');
    form.append('document_type', 'invoice');
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'documentos-recibidos.csv');
    return fetch(`${world.api.url}${runsPath()}`, { method: 'POST', headers: { ...bearer(world.key), 'Idempotency-Key': key }, body: form });
  };
  const csv = `CUFE/CUDE\n${cufeOf('invoice-signed-setp.xml')}`;
  const runsBefore = await world.api.database.db('dian_imports').where({ company_id: world.company.id }).count<{ count: string }[]>('id as count').first();
  const first = await post(csv, 'dian-run-1');
  const firstBody = (await first.json()) as Record<string, any>;
  t.is(first.status, 202, JSON.stringify(firstBody));
  // Before 2026-11-25 the key of a multipart run was ignored: the retry started a second run.
  const retry = await post(csv, 'dian-run-1');
  t.is(retry.status, 202);
  t.is(retry.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(((await retry.json()) as Record<string, any>).id, firstBody.id);
  t.is(retry.headers.get('location'), `${runsPath()}/${firstBody.id}`);
  const other = await post(`${csv}\n${cufeOf('creditnote-usd.xml')}`, 'dian-run-1');
  t.is(other.status, 409);
  t.is(((await other.json()) as { error: { code: string } }).error.code, 'idempotency_key_reused');
  const runsAfter = await world.api.database.db('dian_imports').where({ company_id: world.company.id }).count<{ count: string }[]>('id as count').first();
  t.is(Number(runsAfter?.count) - Number(runsBefore?.count), 1, 'one run for the key');
  await waitForRun(firstBody.id);
});

test.serial('a run by date range lists DIAN (simulator) and skips what the company already has', async (t) => {
  const before = await documentCount();
  const accepted = await world.call('POST', runsPath(), { begin_date: '2019-01-01', end_date: '2024-12-31', document_type: 'all' });
  t.is(accepted.status, 202);
  t.like(accepted.body, { source: 'dian_web_service', status: 'PENDING' });
  const done = await waitForRun(accepted.body.id);
  t.like(done, { status: 'DONE', found_count: 3, electronic_invoices_count: 1, credit_notes_count: 1, skipped_count: 1 });
  t.is(await documentCount(), before + 2);
  // The already-present invoice was skipped without fetching its XML again.
  t.is(world.simulator.requests.filter((request) => request.operation === 'GetXmlByDocumentKey').length, 3);
});

test.serial('re-running the same range creates no duplicates: everything is skipped', async (t) => {
  const before = await documentCount();
  const accepted = await world.call('POST', runsPath(), { begin_date: '2019-01-01', end_date: '2024-12-31', document_type: 'all' });
  const done = await waitForRun(accepted.body.id);
  t.like(done, { status: 'DONE', found_count: 3, electronic_invoices_count: 0, credit_notes_count: 0, skipped_count: 3 });
  t.is(await documentCount(), before);
  const list = await world.call('GET', `${runsPath()}?limit=2`);
  t.is(list.body.data.length, 2);
  t.true(list.body.has_more);
  t.is(list.body.data[0].id, accepted.body.id);
});

test.serial('validation: dates, range order and a CSV without a CUFE column', async (t) => {
  const bad = await world.call('POST', runsPath(), { begin_date: '2024-02-30', end_date: '2024-03-01' });
  t.is(bad.status, 400);
  t.is(bad.body.error.param, 'begin_date');
  const reversed = await world.call('POST', runsPath(), { begin_date: '2024-03-02', end_date: '2024-03-01' });
  t.is(reversed.body.error.param, 'end_date');
  // Listing DIAN: ten years at most (3,653 days), so a range of centuries is not thousands of requests.
  const runsBefore = await world.api.database.db('dian_imports').where({ company_id: world.company.id }).count<{ count: string }[]>('id as count').first();
  const centuries = await world.call('POST', runsPath(), { begin_date: '0001-01-01', end_date: '9999-12-31' });
  t.is(centuries.status, 400);
  t.like(centuries.body.error, { code: 'invalid_parameter', param: 'end_date' });
  t.regex(centuries.body.error.message, /at most 3653 days; 0001-01-01 to 9999-12-31 is 3652059\b/);
  const tenYearsAndADay = await world.call('POST', runsPath(), { begin_date: '2015-01-01', end_date: '2025-01-01' });
  t.is(tenYearsAndADay.status, 400, '2015-01-01 to 2025-01-01 is 3,654 days');
  const runsAfter = await world.api.database.db('dian_imports').where({ company_id: world.company.id }).count<{ count: string }[]>('id as count').first();
  t.is(runsAfter?.count, runsBefore?.count, 'no run was recorded');
  // An uploaded export is not listed: the same range only filters it.
  const longForm = new FormData();
  longForm.append('begin_date', '0001-01-01');
  longForm.append('end_date', '9999-12-31');
  longForm.append('file', new Blob([`CUFE/CUDE\n${'a'.repeat(96)}`], { type: 'text/csv' }), 'documentos-recibidos.csv');
  const filtered = await fetch(`${world.api.url}${runsPath()}`, { method: 'POST', headers: bearer(world.key), body: longForm });
  t.is(filtered.status, 202);
  await waitForRun(((await filtered.json()) as { id: number }).id);
  const form = new FormData();
  form.append('begin_date', '2019-01-01');
  form.append('end_date', '2019-12-31');
  form.append('file', new Blob(['Folio;Prefijo\n1;A'], { type: 'text/csv' }), 'x.csv');
  const response = await fetch(`${world.api.url}${runsPath()}`, { method: 'POST', headers: bearer(world.key), body: form });
  t.is(response.status, 400);
  t.is(((await response.json()) as { error: { param: string } }).error.param, 'file');

  // An XLSX of a few hundred bytes whose cells claim column 20,000,000: read in the CPU pool,
  // refused as a 400 on its file, and the API answers others meanwhile.
  const wide = new AdmZip();
  const cells = Array.from({ length: 4 }, (_, row) => `<row r="${row + 1}"><c r="A${row + 1}" t="inlineStr"><is><t>CUFE/CUDE</t></is></c><c r="AQSWTU${row + 1}"><v>1</v></c></row>`).join('');
  wide.addFile('xl/worksheets/sheet1.xml', Buffer.from(`<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${cells}</sheetData></worksheet>`));
  const xlsxForm = new FormData();
  xlsxForm.append('begin_date', '2019-01-01');
  xlsxForm.append('end_date', '2019-12-31');
  xlsxForm.append('file', new Blob([new Uint8Array(wide.toBuffer())]), 'documentos-recibidos.xlsx');
  const [refused, health] = await Promise.all([
    fetch(`${world.api.url}${runsPath()}`, { method: 'POST', headers: bearer(world.key), body: xlsxForm }),
    fetch(`${world.api.url}/healthz`),
  ]);
  t.is(health.status, 200);
  t.is(refused.status, 400);
  t.like(((await refused.json()) as { error: object }).error, { code: 'invalid_parameter', param: 'file' });
});

test.serial('an invoice run finds every kind of invoice (a contingency 03 too), and all leaves debit notes out, as an uploaded export does', async (t) => {
  const setp = fixture('invoice-signed-setp.xml').toString('utf8');
  const contingencyCufe = 'c3'.repeat(48);
  const contingency = setp
    .replace('<cbc:InvoiceTypeCode>01</cbc:InvoiceTypeCode>', '<cbc:InvoiceTypeCode>03</cbc:InvoiceTypeCode>')
    .replace('<cbc:ID>SETP990000002</cbc:ID>', '<cbc:ID>SETP990000903</cbc:ID>')
    .replace(/(<cbc:UUID schemeID="2" schemeName="CUFE-SHA384">)[0-9a-f]{96}/, `$1${contingencyCufe}`);
  t.true(contingency.includes(`>${contingencyCufe}</cbc:UUID>`) && contingency.includes('>03</cbc:InvoiceTypeCode>'));
  world.simulator.addDocument(contingencyCufe, contingency, { receiverNit: world.company.nit, issueDate: '2025-03-10', documentType: '03' });
  world.simulator.addDocument('d9'.repeat(48), fixture('debitnote.xml'), { receiverNit: world.company.nit, issueDate: '2025-03-11', documentType: '92' });
  const range = { begin_date: '2025-03-01', end_date: '2025-03-31' };

  const invoices = await world.call('POST', runsPath(), { ...range, document_type: 'invoice' });
  t.like(await waitForRun(invoices.body.id), { status: 'DONE', found_count: 1, electronic_invoices_count: 1, credit_notes_count: 0, skipped_count: 0 });
  const stored = await world.api.database.db('documents').where({ company_id: world.company.id, cufe: contingencyCufe }).first('dian_document_type', 'dian_type_code');
  t.like(stored, { dian_document_type: 'contingency_invoice', dian_type_code: '03' });

  const all = await world.call('POST', runsPath(), { ...range, document_type: 'all' });
  t.like(await waitForRun(all.body.id), { status: 'DONE', found_count: 1, electronic_invoices_count: 0, credit_notes_count: 0, skipped_count: 1 });
});
