import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { FIXTURES, INCONSISTENT_FIXTURES, OWN_FIXTURES, upload, waitForImport } from '../support/ingestion';
import { startTestWorker, type TestWorker } from '../support/worker';
import { reclassifyFromOriginals } from '../../services/reclassify-documents';

// Decision 0029, end to end through the real upload API and worker: every real DIAN document of
// the fixtures imports with no warning; one whose PayableAmount was altered is imported all the
// same, shows its figures as written, and carries a payable_amount_mismatch warning a client can
// filter on.
let api: TestApi;
let worker: TestWorker;
let key: string;
const companies: Record<string, { id: number }> = {};
/** The buyer of each fixture (the company it imports into): 900108281 unless named here. */
const BUYERS: Record<string, string> = {
  'toolbox-free-samples.xml': '154698949',
  'toolbox-other-currency.xml': '154698949',
  'attached-document-volt.xml': '161803398875',
  'apidian-go-cedula-supplier.xml': '900123458',
  'toolbox-support-adjustment-note.xml': '800197268',
  'production-health-attached.xml': '830003564',
  'toolbox-tip.xml': '900373991',
  'toolbox-credit-note-without-reference.xml': '791098888',
  'toolbox-support-document-usd.xml': '20227859',
};
const COLLECTIONS: Record<string, string> = { credit_note: 'credit-notes', debit_note: 'debit-notes', electronic_invoice: 'invoices' };
const imported: { name: string; companyId: number; collection: string; id: number }[] = [];

const SETP_CUFE = '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694';
/** invoice-signed-setp.xml with its PayableAmount raised by 100.00 (and another CUFE, so it is a document of its own). */
const altered = readFileSync(path.join(FIXTURES, 'invoice-signed-setp.xml'), 'utf8')
  .replace('<cbc:PayableAmount currencyID="COP">14024.07</cbc:PayableAmount>', '<cbc:PayableAmount currencyID="COP">14124.07</cbc:PayableAmount>')
  .replaceAll(SETP_CUFE, 'a'.repeat(96));
let alteredId: number;
/** The altered document's entry in its uploaded file's record, which is also document.imported's payload. */
let alteredEntry: Record<string, unknown>;

async function get(url: string) {
  const response = await fetch(`${api.url}${url}`, { headers: bearer(key) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

async function importFile(name: string, bytes: Buffer, buyer: string) {
  const companyId = companies[buyer].id;
  const accepted = await upload(api.url, key, companyId, { name, bytes });
  const file = await waitForImport(api.url, key, companyId, accepted.body.id);
  if (file.status !== 'DONE') throw new Error(`${name}: ${JSON.stringify(file.error)}`);
  const [document] = file.documents;
  return { companyId, collection: COLLECTIONS[document.kind], id: document.id as number, entry: document as Record<string, unknown> };
}

test.before(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.database, api.config);
  for (const nit of new Set(['900108281', ...Object.values(BUYERS)])) companies[nit] = await seedCompany(api.database, `Comprador ${nit}`, nit);
  key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write'], role: 'admin' })).key;
  for (const dir of [FIXTURES, OWN_FIXTURES]) {
    for (const name of readdirSync(dir).filter((entry) => entry.endsWith('.xml'))) {
      imported.push({ name, ...(await importFile(name, readFileSync(path.join(dir, name)), BUYERS[name] ?? '900108281')) });
    }
  }
  ({ id: alteredId, entry: alteredEntry } = await importFile('altered-payable.xml', Buffer.from(altered), '900108281'));
});
test.after.always(async () => {
  await worker?.stop();
  await api?.close();
});

test.serial('every real DIAN document of the fixtures is imported with an empty warnings list, but the one whose totals do not add up', async (t) => {
  t.true(imported.length >= 12);
  for (const document of imported) {
    const { status, body } = await get(`/v1/companies/${document.companyId}/${document.collection}/${document.id}`);
    t.is(status, 200, document.name);
    t.deepEqual(body.warnings.map((warning: { code: string }) => warning.code), INCONSISTENT_FIXTURES[document.name] ?? [], document.name);
  }
});

test.serial('an altered PayableAmount is imported as written and flagged payable_amount_mismatch', async (t) => {
  const company = companies['900108281'].id;
  const { body } = await get(`/v1/companies/${company}/invoices/${alteredId}`);
  t.like(body, { cufe: 'a'.repeat(96), number: 'SETP990000002', sub_total: '12600.06', total: '14124.07', tax_total: '2424.01', prepaid_amount: '1000.00' });
  t.deepEqual(body.warnings, [
    {
      code: 'payable_amount_mismatch',
      message: 'PayableAmount is 14124.07 but TaxInclusiveAmount − AllowanceTotalAmount + ChargeTotalAmount − PrepaidAmount + PayableRoundingAmount is 14024.07 (a difference of 100.00), and 15024.07 without deducting PrepaidAmount',
    },
  ]);
  // The uploaded file's documents summary (document.imported's payload) says so too.
  t.deepEqual(alteredEntry.warnings, body.warnings);
});

test.serial('has_warnings filters the list: true only the flagged document, false all the others; any other value is 400', async (t) => {
  const company = companies['900108281'].id;
  const flagged = await get(`/v1/companies/${company}/invoices?has_warnings=true`);
  t.deepEqual(flagged.body.data.map((document: { id: number }) => document.id), [alteredId]);
  const clean = await get(`/v1/companies/${company}/invoices?has_warnings=false`);
  const all = await get(`/v1/companies/${company}/invoices`);
  t.deepEqual(clean.body.data.map((document: { id: number }) => document.id), all.body.data.map((document: { id: number }) => document.id).filter((id: number) => id !== alteredId));
  const bad = await get(`/v1/companies/${company}/invoices?has_warnings=yes`);
  t.is(bad.status, 400);
  t.is(bad.body.error.param, 'has_warnings');
});

test.serial('a document stored before the check shows warnings null until reclassify re-reads its original', async (t) => {
  const company = companies['900108281'].id;
  await api.database.db('documents').whereIn('id', [alteredId]).update({ warnings: null });
  t.is((await get(`/v1/companies/${company}/invoices/${alteredId}`)).body.warnings, null);
  t.deepEqual((await get(`/v1/companies/${company}/invoices?has_warnings=true`)).body.data, [], 'never checked is not flagged');
  const outcome = await reclassifyFromOriginals({ repositories: api.dependencies.repositories, blobStore: api.dependencies.blobStore }, { companyId: company });
  t.like(outcome, { examined: 1, updated: 1 });
  t.deepEqual((await get(`/v1/companies/${company}/invoices/${alteredId}`)).body.warnings.map((warning: { code: string }) => warning.code), ['payable_amount_mismatch']);
});

test.serial('the records of DIAN toolbox examples first read in the 2026-11-25 review say what the documents say', async (t) => {
  const record = async (name: string) => {
    const document = imported.find((entry) => entry.name === name)!;
    return (await get(`/v1/companies/${document.companyId}/${document.collection}/${document.id}`)).body;
  };
  const support = await record('toolbox-support-document-usd.xml');
  t.like(support, {
    number: 'DS236000009', kind: 'purchase', document_type: 'support_document', document_type_code: '05', code_scheme: 'CUDS', dian_environment: 'testing',
    issued_at: '2022-04-05T18:34:59.000Z', due_date: '2021-08-14', currency: 'USD',
    sub_total: '3899.00', vat: '432.00', tax_total: '432.00', total: '4152.00', allowance_total: '393.00', charge_total: '214.00', withholding_total: '290.52',
    exchange_rate: { source_currency: 'USD', target_currency: 'COP', rate: '3650.00', date: '2020-09-21' },
    contact: { name: 'RAZÓN SOCIAL VENDEDOR' },
  });
  // COP equivalents at the document's own rate: 4152.00 × 3650.00, 290.52 × 3650.00.
  t.like(support.cop_equivalents, { total: '15154800.00', withholding_total: '1060398.00' });
  t.deepEqual(support.withholdings.map((entry: { tax_scheme_id: string; amount: string; amount_cop: string }) => [entry.tax_scheme_id, entry.amount, entry.amount_cop]), [
    ['05', '48.30', '176295.00'],
    ['06', '242.22', '884103.00'],
  ]);
  const tip = await record('toolbox-tip.xml');
  t.like(tip, { number: 'SETP990000001', document_type: 'electronic_invoice', sub_total: '1000000.00', vat: '190000.00', total: '1290000.00', charge_total: '100000.00', currency: 'COP', exchange_rate: null });
  t.deepEqual(tip.allowance_charges, [{ charge: true, reason_code: '03', reason: 'Propina', percent: '10.00', amount: '100000.00', base_amount: '100000.00' }]);
  const note = await record('toolbox-credit-note-without-reference.xml');
  t.like(note, { number: 'NC50101', document_type: 'credit_note', document_type_code: '91', code_scheme: 'CUDE', total: '8835750.00', referenced_document: null, referenced_documents: [] });
});
