import test from 'ava';
import { createDocumentWithOriginal, seedDemoDocuments } from '../../admin/demo-documents';
import { COLLECTIONS } from '../../domain/documents/collections';
import { FilesystemBlobStore } from '../../storage/filesystem-blob-store';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
let reader: string;
let companyA: { id: number; nit: string };
let companyB: { id: number; nit: string };
let demoA: Awaited<ReturnType<typeof seedDemoDocuments>>;
let demoB: Awaited<ReturnType<typeof seedDemoDocuments>>;

test.before(async () => {
  api = await startTestApi();
  companyA = await seedCompany(api.database, 'Compras A S.A.S.', '900108281');
  companyB = await seedCompany(api.database, 'Compras B S.A.S.', '890903938');
  const deps = { repositories: api.database.repositories, blobStore: api.dependencies.blobStore };
  demoA = await seedDemoDocuments(deps, companyA);
  demoB = await seedDemoDocuments(deps, companyB);
  reader = (await seedKey(api.database, { scopes: ['documents:read'], companyIds: [companyA.id] })).key;
});
test.after.always(async () => api?.close());

async function get(path: string, key = reader) {
  const response = await fetch(`${api.url}${path}`, { headers: bearer(key), redirect: 'manual' });
  const text = await response.text();
  let body: any = null;
  try {
    body = JSON.parse(text);
  } catch {
    body = text;
  }
  return { status: response.status, headers: response.headers, body };
}

test('GET …/invoices returns the spec envelope and Invoice objects with the spec types', async (t) => {
  const { status, body } = await get(`/v1/companies/${companyA.id}/invoices`);
  t.is(status, 200);
  t.deepEqual(Object.keys(body).sort(), ['data', 'has_more', 'next_cursor']);
  t.false(body.has_more);
  t.is(body.next_cursor, null);
  t.deepEqual(body.data.map((invoice: { id: number }) => invoice.id), [demoA.invoiceFromXml, demoA.invoiceFromZip], 'newest first');
  const invoice = body.data[1];
  for (const field of ['id', 'number', 'cufe', 'kind', 'issued_at', 'due_date', 'contact', 'sub_total', 'vat', 'total', 'currency', 'synced', 'synced_at', 'export', 'imported_file_id', 'files', 'created_at', 'updated_at']) {
    t.true(field in invoice, field);
  }
  t.like(invoice, { number: 'FEDEMO1', kind: 'purchase', due_date: '2026-12-02', sub_total: '1000000.00', vat: '190000.00', total: '1190000.00', currency: 'COP', synced: false, synced_at: null, export: null });
  t.is(invoice.issued_at, '2026-11-02T15:00:00.000Z');
  t.regex(invoice.cufe, /^[0-9a-f]{96}$/);
  t.deepEqual(Object.keys(invoice.contact).sort(), ['id', 'id_number', 'name']);
  t.is(invoice.contact.id_number, 800197268);
  t.is(typeof invoice.imported_file_id, 'number');
  t.deepEqual(invoice.files, {
    original: { available: true, file_name: 'FEDEMO1.zip', extension: 'zip', content_type: 'application/zip', size: invoice.files.original.size },
    pdf: { status: 'on_demand', source: 'service' },
  });
});

test('every collection lists and reads its own kind only', async (t) => {
  const expected: Record<string, number[]> = {
    invoices: [demoA.invoiceFromXml, demoA.invoiceFromZip],
    'credit-notes': [demoA.creditNote],
    'payment-claim-accounts': [demoA.paymentClaimWithoutFile, demoA.paymentClaim],
    'foreign-invoices': [demoA.foreignInvoice],
    'debit-notes': [],
  };
  for (const collection of Object.values(COLLECTIONS)) {
    const list = await get(`/v1/companies/${companyA.id}/${collection}`);
    t.is(list.status, 200, collection);
    t.deepEqual(list.body.data.map((d: { id: number }) => d.id), expected[collection], collection);
    for (const id of expected[collection]) {
      const one = await get(`/v1/companies/${companyA.id}/${collection}/${id}`);
      t.is(one.status, 200);
      t.is(one.body.id, id);
    }
  }
  // An invoice id is not a credit note.
  t.is((await get(`/v1/companies/${companyA.id}/credit-notes/${demoA.invoiceFromZip}`)).status, 404);
  const note = await get(`/v1/companies/${companyA.id}/credit-notes/${demoA.creditNote}`);
  t.deepEqual(note.body.referenced_document.number, 'FEDEMO1');
  t.deepEqual(note.body.referenced_documents.map((reference: { number: string }) => reference.number), ['FEDEMO1']);
  const withoutFile = await get(`/v1/companies/${companyA.id}/payment-claim-accounts/${demoA.paymentClaimWithoutFile}`);
  t.deepEqual(withoutFile.body.files, { original: { available: false }, pdf: { status: 'none', source: null } });
});

test("the demo's files read as imported: DONE, processed, each listing the document it holds", async (t) => {
  const files = await get(`/v1/companies/${companyA.id}/files?limit=100`);
  t.is(files.status, 200);
  const seeded = [demoA.invoiceFromZip, demoA.invoiceFromXml, demoA.creditNote, demoA.paymentClaim, demoA.foreignInvoice];
  t.is(files.body.data.length, seeded.length);
  for (const file of files.body.data) {
    t.is(file.status, 'DONE', file.file_name);
    t.truthy(file.processed_at, file.file_name);
    t.true(file.processed_at >= file.created_at, `${file.file_name}: processed ${file.processed_at}, created ${file.created_at}`);
    t.is(file.documents.length, 1, file.file_name);
  }
  t.deepEqual(files.body.data.map((file: { documents: { id: number }[] }) => file.documents[0]!.id).sort((a: number, b: number) => a - b), [...seeded].sort((a, b) => a - b));
});

async function download(location: string) {
  // Followed without the Authorization header, as the spec requires.
  const response = await fetch(location);
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

test('original: 302 to a signed URL that serves the exact bytes without Authorization', async (t) => {
  const redirect = await get(`/v1/companies/${companyA.id}/payment-claim-accounts/${demoA.paymentClaim}/original`);
  t.is(redirect.status, 302);
  t.is(redirect.headers.get('cache-control'), 'no-store');
  t.is(redirect.headers.get('content-type'), null, 'no "Redirecting to" text or HTML');
  t.is(redirect.body, '');
  const location = redirect.headers.get('location')!;
  t.regex(location, /\/blobs\/companies\/\d+\/uploads\/.+\?expires=\d+&name=.+&signature=/);
  const expires = Number(new URL(location).searchParams.get('expires'));
  t.true(Math.abs(expires - (Math.floor(Date.now() / 1000) + 3600)) <= 5, 'valid for one hour');
  const file = await download(location);
  t.is(file.status, 200);
  t.is(file.headers.get('content-type'), 'application/pdf');
  t.is(file.headers.get('content-length'), String(file.bytes.length));
  t.regex(file.headers.get('content-disposition') ?? '', /attachment; filename="cuenta-de-cobro-001.pdf"/);
  const stored = await api.database.db('uploaded_files').join('documents', 'documents.imported_file_id', 'uploaded_files.id').where('documents.id', demoA.paymentClaim).first('uploaded_files.size');
  t.is(file.bytes.length, Number(stored.size));
  t.is(file.bytes.subarray(0, 5).toString(), '%PDF-');
});

test('pdf: a PDF original is served as is; a ZIP with a PDF is extracted once, then redirected directly', async (t) => {
  const claim = await get(`/v1/companies/${companyA.id}/payment-claim-accounts/${demoA.paymentClaim}/pdf`);
  t.is(claim.status, 302);
  t.is((await download(claim.headers.get('location')!)).status, 200);

  const first = await get(`/v1/companies/${companyA.id}/invoices/${demoA.invoiceFromZip}/pdf`);
  t.is(first.status, 302);
  const pdf = await download(first.headers.get('location')!);
  t.is(pdf.status, 200);
  t.is(pdf.headers.get('content-type'), 'application/pdf');
  t.is(pdf.bytes.subarray(0, 5).toString(), '%PDF-');
  const row = await api.database.db('documents').where({ id: demoA.invoiceFromZip }).first();
  t.truthy(row.pdf_blob_key, 'the produced PDF is stored for reuse');
  const second = await get(`/v1/companies/${companyA.id}/invoices/${demoA.invoiceFromZip}/pdf`);
  t.is(second.status, 302);
  t.deepEqual((await download(second.headers.get('location')!)).bytes, pdf.bytes);

  const note = await get(`/v1/companies/${companyA.id}/credit-notes/${demoA.creditNote}/pdf`);
  t.is(note.status, 302);
});

test('pdf: an invoice whose original is XML gets a generated graphic representation, stored once', async (t) => {
  const first = await get(`/v1/companies/${companyA.id}/invoices/${demoA.invoiceFromXml}/pdf`);
  t.is(first.status, 302);
  const pdf = await download(first.headers.get('location')!);
  t.is(pdf.status, 200);
  t.is(pdf.bytes.subarray(0, 5).toString(), '%PDF-');
  t.regex(pdf.headers.get('content-disposition') ?? '', /FEDEMO2\.pdf/);
  const second = await download((await get(`/v1/companies/${companyA.id}/invoices/${demoA.invoiceFromXml}/pdf`)).headers.get('location')!);
  t.deepEqual(second.bytes, pdf.bytes);
});

test('pdf: an on-demand PDF that cannot be produced is 404 file_not_available', async (t) => {
  const companyC = await seedCompany(api.database, 'Rota S.A.S.', '860034313');
  const key = (await seedKey(api.database, { scopes: ['documents:read'], companyIds: [companyC.id] })).key;
  const broken = await createDocumentWithOriginal(
    { repositories: api.database.repositories, blobStore: api.dependencies.blobStore },
    { company_id: companyC.id, document_type: 'electronic_invoice', number: 'BROKEN', cufe: 'f'.repeat(96), issued_at: new Date('2020-01-01T00:00:00Z') },
    { fileName: 'broken.xml', contentType: 'application/xml', bytes: Buffer.from('<Invoice><cbc:ID>unclosed') },
  );
  const result = await get(`/v1/companies/${companyC.id}/invoices/${broken}/pdf`, key);
  t.is(result.status, 404);
  t.is(result.body.error.code, 'file_not_available');
});

test('missing variants are 404 file_not_available; unknown documents are 404 not_found', async (t) => {
  for (const path of [
    `/v1/companies/${companyA.id}/payment-claim-accounts/${demoA.paymentClaimWithoutFile}/original`,
    `/v1/companies/${companyA.id}/payment-claim-accounts/${demoA.paymentClaimWithoutFile}/pdf`,
  ]) {
    const result = await get(path);
    t.is(result.status, 404, path);
    t.is(result.body.error.code, 'file_not_available');
  }
  const unknown = await get(`/v1/companies/${companyA.id}/invoices/987654/pdf`);
  t.is(unknown.status, 404);
  t.is(unknown.body.error.code, 'not_found');
});

test('signed URLs: tampered or expired links are refused', async (t) => {
  const redirect = await get(`/v1/companies/${companyA.id}/foreign-invoices/${demoA.foreignInvoice}/original`);
  const location = new URL(redirect.headers.get('location')!);
  const tampered = new URL(location);
  tampered.searchParams.set('expires', String(Number(location.searchParams.get('expires')) + 3600));
  const forged = await fetch(tampered);
  t.is(forged.status, 403);
  t.is(((await forged.json()) as { error: { code: string } }).error.code, 'invalid_signature');
  const otherKey = new URL(location);
  otherKey.pathname = otherKey.pathname.replace(/uploads\/.*/, 'uploads/another.pdf');
  t.is((await fetch(otherKey)).status, 403);

  const store = api.dependencies.blobStore as FilesystemBlobStore;
  const key = location.pathname.replace('/blobs/', '');
  const expired = await store.signedDownloadUrl(key, { fileName: 'x.pdf', contentType: 'application/pdf', expiresInSeconds: -1 });
  const refused = await fetch(expired);
  t.is(refused.status, 403);
  t.is(((await refused.json()) as { error: { code: string } }).error.code, 'url_expired');
});

test('files/{file_id}/content redirects to the upload', async (t) => {
  const invoice = await get(`/v1/companies/${companyA.id}/invoices/${demoA.invoiceFromXml}`);
  const redirect = await get(`/v1/companies/${companyA.id}/files/${invoice.body.imported_file_id}/content`);
  t.is(redirect.status, 302);
  const file = await download(redirect.headers.get('location')!);
  t.is(file.headers.get('content-type'), 'application/xml');
  t.regex(file.bytes.toString(), /<cbc:ID>FEDEMO2<\/cbc:ID>/);
});

test('every download is answered as the OpenAPI document declares downloadBlob: a documented Content-Type, declared query parameters', async (t) => {
  const operation = (await (await fetch(`${api.url}/v1/openapi.json`)).json()) as any;
  const declared = operation.paths['/blobs/{key}'].get;
  const types = Object.keys(declared.responses['200'].content);
  const parameters = declared.parameters.filter((parameter: { in: string }) => parameter.in === 'query').map((parameter: { name: string }) => parameter.name);
  const downloads = [
    `/v1/companies/${companyA.id}/payment-claim-accounts/${demoA.paymentClaim}/original`,
    `/v1/companies/${companyA.id}/invoices/${demoA.invoiceFromZip}/original`,
    `/v1/companies/${companyA.id}/invoices/${demoA.invoiceFromXml}/original`,
    `/v1/companies/${companyA.id}/invoices/${demoA.invoiceFromXml}/pdf`,
    `/v1/companies/${companyA.id}/invoices/${demoA.invoiceFromZip}/pdf`,
  ];
  const served = new Set<string>();
  for (const path of downloads) {
    const location = new URL((await get(path)).headers.get('location')!);
    t.deepEqual([...location.searchParams.keys()].filter((name) => !parameters.includes(name)), [], `${path}: undeclared query parameters`);
    const file = await download(location.href);
    t.is(file.status, 200, path);
    const type = file.headers.get('content-type')!;
    t.true(types.includes(type), `${path}: ${type} is one of ${types.join(', ')}`);
    served.add(type);
  }
  // It declared application/octet-stream only, which no download is.
  t.deepEqual([...served].sort(), ['application/pdf', 'application/xml', 'application/zip']);
});

test('tenant isolation: a key for company A sees nothing of company B by any id', async (t) => {
  t.is((await get(`/v1/companies/${companyB.id}/invoices`)).status, 404);
  t.is((await get(`/v1/companies/${companyB.id}/invoices/${demoB.invoiceFromZip}`)).status, 404);
  t.is((await get(`/v1/companies/${companyA.id}/invoices/${demoB.invoiceFromZip}`)).status, 404, 'B’s document under A’s path');
  t.is((await get(`/v1/companies/${companyA.id}/invoices/${demoB.invoiceFromZip}/original`)).status, 404);
  const bFile = await api.database.db('documents').where({ id: demoB.paymentClaim }).first('imported_file_id');
  t.is((await get(`/v1/companies/${companyA.id}/files/${bFile.imported_file_id}/content`)).status, 404);
  const contactOfB = await api.database.db('contacts').where({ company_id: companyB.id }).first('id');
  const contactReader = (await seedKey(api.database, { scopes: ['contacts:read'], companyIds: [companyA.id] })).key;
  t.is((await get(`/v1/contacts/${contactOfB.id}`, contactReader)).status, 404);
});

test('documents need documents:read; contacts need contacts:read', async (t) => {
  const noScope = (await seedKey(api.database, { scopes: ['contacts:read'] })).key;
  const denied = await get(`/v1/companies/${companyA.id}/invoices`, noScope);
  t.is(denied.status, 403);
  t.is(denied.body.error.code, 'insufficient_scope');
  t.is((await get(`/v1/companies/${companyA.id}/contacts`)).status, 403);
});

test('contacts: the full schema by id and a paginated list per company', async (t) => {
  const key = (await seedKey(api.database, { scopes: ['contacts:read'], companyIds: [companyA.id] })).key;
  const list = await get(`/v1/companies/${companyA.id}/contacts`, key);
  t.is(list.status, 200);
  t.is(list.body.data.length, 1);
  const contact = await get(`/v1/contacts/${list.body.data[0].id}`, key);
  t.deepEqual(Object.keys(contact.body).sort(), ['address', 'city', 'company_id', 'country_code', 'created_at', 'dv', 'email', 'id', 'id_number', 'id_type', 'name', 'phone', 'updated_at']);
  t.like(contact.body, { id_number: '800197268', dv: '4', id_type: '31', name: 'Proveedor Demo S.A.S.' });
});

test('list filters: dates (Colombian days), synced, contact_id, kind, has_warnings; invalid values are 400', async (t) => {
  const base = `/v1/companies/${companyA.id}/invoices`;
  const ids = async (query: string) => (await get(`${base}?${query}`)).body.data.map((d: { id: number }) => d.id);
  t.deepEqual(await ids('issued_from=2026-11-03'), [demoA.invoiceFromXml]);
  t.deepEqual(await ids('issued_to=2026-11-02'), [demoA.invoiceFromZip]);
  t.deepEqual(await ids('issued_from=2026-11-02&issued_to=2026-11-05'), [demoA.invoiceFromXml, demoA.invoiceFromZip]);
  t.deepEqual(await ids('synced=true'), []);
  t.is((await ids('synced=false')).length, 2);
  t.deepEqual(await ids('kind=sale'), []);
  t.deepEqual(await ids('has_warnings=true'), [], "the demo's invoices add up");
  t.is((await ids('has_warnings=false')).length, 2);
  const contact = await api.database.db('contacts').where({ company_id: companyA.id }).first('id');
  t.is((await ids(`contact_id=${contact.id}`)).length, 2);
  for (const [query, param] of [['issued_from=2026-13-01', 'issued_from'], ['issued_to=yesterday', 'issued_to'], ['synced=maybe', 'synced'], ['contact_id=x', 'contact_id'], ['kind=gift', 'kind'], ['has_warnings=maybe', 'has_warnings'], ['issued_to=2026-02-29', 'issued_to'], ['issued_from=0000-01-01', 'issued_from'], ['contact_id=99999999999999999', 'contact_id'], ['limit=', 'limit']]) {
    const result = await get(`${base}?${query}`);
    t.is(result.status, 400, query);
    t.is(result.body.error.param, param, query);
  }
  const leadingZero = await get(`${base}?contact_id=0${contact.id}`);
  t.is(leadingZero.status, 400);
  t.regex(String(leadingZero.body.error.message), /contact_id must be a positive integer id in plain decimal digits, without sign or leading zeros/);
  // An inverted range is schema-valid and matches nothing.
  t.deepEqual(await ids('issued_from=2026-11-05&issued_to=2026-11-01'), []);
});
