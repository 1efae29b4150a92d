import test from 'ava';
import { parseUbl } from '../../domain/ubl/parse';
import { colombianDate } from '../../domain/dian/business-days';
import { generateTestPkcs12 } from '../../testing/dian-certificates';
import { bearer, seedCompany, seedKey, startTestApi } from '../support/api';
import { startDianWorld, type DianWorld } from '../support/dian-world';
import { eventually } from '../support/eventually';
import { fixture } from '../support/ingestion';

// Range imports through DIAN's bulk download (BulkDocumentDownloadAsync → GetStatusBulkDocumentDownload
// → CSV link), turned on with DIAN_BULK_LISTING=assumed, against the simulator on the dev server.
let world: DianWorld;

const daysAgo = (days: number) => colombianDate(new Date(Date.now() - days * 86_400_000));
const runsPath = () => `/v1/companies/${world.company.id}/dian-imports`;
const operations = (name: string) => world.simulator.requests.filter((request) => request.operation === name).length;

test.before(async () => {
  world = await startDianWorld({
    env: { DIAN_BULK_LISTING: 'assumed' },
    // DIAN refuses starts more than 3 months back; widened so a 5-month range can be split and listed.
    simulator: { bulkDownloadMaxStartAgeDays: 400 },
  });
  dateBuyerDocumentsRecently();
  // A document the company ISSUED in the range: not "Recibido", so never listed for the import.
  world.simulator.addDocument('ab'.repeat(48), fixture('invoice-signed-setp.xml'), {
    receiverNit: '800197268', senderNit: '900108281', issueDate: daysAgo(10), documentType: '01',
  });
});
/**
 * The buyer's documents, dated recently in DIAN's records (the catalogue's dates are what DIAN
 * lists). Again after each import: the service re-registers what it imported with the simulator,
 * with the dates written in the XML (2019).
 */
function dateBuyerDocumentsRecently() {
  const dated = [
    ['invoice-signed-setp.xml', 140, '01'],
    ['creditnote-usd.xml', 20, '91'],
    ['toolbox-excluded-vat.xml', 5, '01'],
  ] as const;
  for (const [name, age, documentType] of dated) {
    const { document } = parseUbl(fixture(name));
    world.simulator.addDocument(document.cufe, fixture(name), {
      receiverNit: '900108281', senderNit: document.supplier.idNumber, issueDate: daysAgo(age), documentType,
    });
  }
}

test.after.always(async () => {
  await world?.close();
});

async function waitForRun(id: number) {
  return eventually(async () => {
    const run = await world.call('GET', `${runsPath()}/${id}`);
    return run.body.status === 'DONE' || run.body.status === 'ERROR' ? run.body : undefined;
  }, 120_000);
}

test.serial('a five-month range is listed through BulkDocumentDownloadAsync in two ≤3-month windows and imported', async (t) => {
  const accepted = await world.call('POST', runsPath(), { begin_date: daysAgo(150), end_date: daysAgo(0), document_type: 'all' });
  t.is(accepted.status, 202, JSON.stringify(accepted.body));
  t.like(accepted.body, { source: 'dian_web_service' });
  const done = await waitForRun(accepted.body.id);
  t.like(done, { status: 'DONE', found_count: 3, electronic_invoices_count: 2, credit_notes_count: 1, skipped_count: 0 });
  t.is(operations('BulkDocumentDownloadAsync'), 2, 'one request per window');
  t.is(operations('GetStatusBulkDocumentDownload'), 2);
  t.is(operations('bulk download'), 2, 'each CSV downloaded once');
  t.is(operations('ListReceivedDocuments'), 0, 'the simulator-only extension is not used');
  t.false(world.simulator.requests.some((request) => request.operation === 'GetXmlByDocumentKey' && request.outcome !== 'Code 100'));
  const run = await world.api.database.db('dian_imports').where({ id: accepted.body.id }).first();
  t.false((run.requested_cufes as string[]).includes('ab'.repeat(48)), 'a document the company issued is not listed');
});

test.serial('invoices only, within one window: the CSV\'s types and dates filter, already imported ones are skipped', async (t) => {
  dateBuyerDocumentsRecently();
  const before = operations('BulkDocumentDownloadAsync');
  const accepted = await world.call('POST', runsPath(), { begin_date: daysAgo(30), end_date: daysAgo(0), document_type: 'invoice' });
  const done = await waitForRun(accepted.body.id);
  t.like(done, { status: 'DONE', found_count: 1, electronic_invoices_count: 0, credit_notes_count: 0, skipped_count: 1 });
  t.is(operations('BulkDocumentDownloadAsync'), before + 1);
});

test.serial('DIAN\'s refusal of a window ends the run in ERROR with its words', async (t) => {
  // The simulator refuses starts older than its widened limit, as DIAN does past 3 months.
  const accepted = await world.call('POST', runsPath(), { begin_date: daysAgo(500), end_date: daysAgo(420), document_type: 'all' });
  const done = await waitForRun(accepted.body.id);
  t.is(done.status, 'ERROR');
  const failed = await eventually(() => world.events('dian_import.failed').find((event) => event.data.id === accepted.body.id));
  t.is(failed.data.status, 'ERROR');
  const row = await world.api.database.db('dian_imports').where({ id: accepted.body.id }).first();
  t.is(row.error_code, 'dian_listing_refused');
  t.regex(row.error_message, /fecha de inicio supera el rango máximo/);
});

test('with DIAN_BULK_LISTING off, a range against DIAN\'s real environments answers 409 listing_not_supported naming the setting', async (t) => {
  const api = await startTestApi();
  try {
    const company = await seedCompany(api.database, 'Sin listado S.A.S.', '900373115');
    const key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write'], role: 'admin' })).key;
    const certificate = generateTestPkcs12('clave', { commonName: 'Sin listado firma' });
    const put = await fetch(`${api.url}/v1/companies/${company.id}/dian-settings`, {
      method: 'PUT',
      headers: { ...bearer(key), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        environment: 'habilitacion', software_id: 'c7f0b5a4-1111-4a0e-9d8b-000000000002', software_pin: '12345',
        certificate_p12_base64: certificate.p12.toString('base64'), certificate_password: certificate.password,
      }),
    });
    t.is(put.status, 200);
    const response = await fetch(`${api.url}/v1/companies/${company.id}/dian-imports`, {
      method: 'POST',
      headers: { ...bearer(key), 'Content-Type': 'application/json' },
      body: JSON.stringify({ begin_date: daysAgo(30), end_date: daysAgo(0) }),
    });
    t.is(response.status, 409);
    const body = (await response.json()) as { error: { code: string; message: string } };
    t.is(body.error.code, 'listing_not_supported');
    t.regex(body.error.message, /DIAN_BULK_LISTING=assumed/);
    t.is((await api.database.db('dian_imports').where({ company_id: company.id })).length, 0, 'no run was created');
  } finally {
    await api.close();
  }
});
