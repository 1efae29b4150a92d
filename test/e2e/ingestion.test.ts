import test from 'ava';
import { simplePdf, zipOf } from '../../admin/demo-documents';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { INLINE_IMPORT_MAX_BYTES } from '../../domain/ingestion/import-lane';
import { fixture, importSteps, paddedXml, upload, waitForImport } from '../support/ingestion';
import { startReceiver, verifiedEvents } from '../support/receiver';
import { startTestWorker, type TestWorker } from '../support/worker';
import { eventually } from '../support/eventually';
import { creditNoteReferencingTwoInvoices, TWO_REFERENCES } from '../support/multi-reference-note';
import { reclassifyFromOriginals } from '../../services/reclassify-documents';

// Upload → import workflow → documents, contacts and webhooks, on the Temporal dev server,
// with the real DIAN sample documents.
let api: TestApi;
let worker: TestWorker;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let secret: string;
let key: string;
let buyer: { id: number };

test.before(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.database, api.config);
  receiver = await startReceiver();
  buyer = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write', 'contacts:read', 'webhooks:manage'], role: 'admin' })).key;
  const endpoint = await fetch(`${api.url}/v1/companies/${buyer.id}/webhooks`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: receiver.url, events: [] }),
  });
  secret = ((await endpoint.json()) as { secret: string }).secret;
});
test.after.always(async () => {
  await worker?.stop();
  await receiver?.close();
  await api?.close();
});

function eventsOfType(type: string) {
  return verifiedEvents(receiver.received, secret).filter((event) => event.type === type);
}


async function getJson(path: string) {
  return (await (await fetch(`${api.url}${path}`, { headers: bearer(key) })).json()) as Record<string, any>;
}

test.serial('an invoice XML becomes a document, its supplier a contact, with document.imported and contact.created', async (t) => {
  const accepted = await upload(api.url, key, buyer.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  t.is(accepted.status, 202);
  t.like(accepted.body, { status: 'PENDING', type: 'API', file_name: 'invoice-signed-setp.xml', dian_importation_id: null, documents: [] });
  const file = await waitForImport(api.url, key, buyer.id, accepted.body.id);
  t.is(file.status, 'DONE', JSON.stringify(file));
  t.is(file.documents.length, 1);
  const [ref] = file.documents;
  t.like(ref, { kind: 'electronic_invoice', cufe: '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694' });

  const invoice = await getJson(`/v1/companies/${buyer.id}/invoices/${ref.id}`);
  t.like(invoice, { number: 'SETP990000002', kind: 'purchase', sub_total: '12600.06', vat: '2424.01', total: '14024.07', currency: 'COP', imported_file_id: accepted.body.id });
  t.is(invoice.issued_at, '2019-06-20T14:15:23.000Z');
  t.is(invoice.contact.id_number, 800197268);
  t.deepEqual(invoice.files.pdf, { status: 'on_demand', source: 'service' });
  t.deepEqual(invoice.files.original.content_type, 'application/xml');

  const contact = await getJson(`/v1/contacts/${invoice.contact.id}`);
  t.like(contact, { id_number: '800197268', dv: '4', name: 'DIAN' });

  const imported = await eventually(() => eventsOfType('document.imported').find((event) => event.data.id === accepted.body.id));
  t.like(imported.data, { id: accepted.body.id, status: 'DONE', type: 'API', file_name: 'invoice-signed-setp.xml', dian_importation_id: null });
  // DIAN's sample is a habilitación document: the summary says so, as the document does.
  t.deepEqual(imported.data.documents, [{ kind: 'electronic_invoice', id: ref.id, cufe: ref.cufe, document_type: 'electronic_invoice', code_scheme: 'CUFE', dian_environment: 'testing', warnings: [] }]);
  const created = await eventually(() => eventsOfType('contact.created').find((event) => event.data.id === invoice.contact.id));
  t.deepEqual(created.data, contact);

  const pdf = await fetch(`${api.url}/v1/companies/${buyer.id}/invoices/${ref.id}/pdf`, { headers: bearer(key), redirect: 'manual' });
  t.is(pdf.status, 302);
  t.is((await fetch(pdf.headers.get('location')!)).headers.get('content-type'), 'application/pdf');
});

test.serial('uploading the same document again creates nothing, reports it skipped and lists it among the file documents', async (t) => {
  const cufe = '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694';
  const again = await upload(api.url, key, buyer.id, { name: 'copy.xml', bytes: fixture('invoice-signed-setp.xml') });
  const file = await waitForImport(api.url, key, buyer.id, again.body.id);
  t.is(file.status, 'DONE');
  const stored = await api.database.db('documents').where({ company_id: buyer.id, cufe });
  t.is(stored.length, 1, 'no second document');
  t.not(stored[0].imported_file_id, again.body.id, 'the document still names the first file it came from');
  // The file's documents exist, so document.imported and the file record list them (spec, Event types).
  t.deepEqual(file.documents, [{ kind: 'electronic_invoice', id: stored[0].id, cufe, document_type: 'electronic_invoice', code_scheme: 'CUFE', dian_environment: 'testing', warnings: [] }]);
  t.deepEqual(file.skipped, [{ cufe, existing_document_id: stored[0].id, kind: 'electronic_invoice' }]);
  const imported = await eventually(() => eventsOfType('document.imported').find((event) => event.data.id === again.body.id));
  t.deepEqual(imported.data.documents, file.documents);
  t.deepEqual(imported.data.skipped, file.skipped);
});

test.serial('a credit note updates the supplier contact (contact.updated) and references its invoice', async (t) => {
  const accepted = await upload(api.url, key, buyer.id, { name: 'nc.xml', bytes: fixture('creditnote-usd.xml') });
  const file = await waitForImport(api.url, key, buyer.id, accepted.body.id);
  t.is(file.status, 'DONE');
  const note = await getJson(`/v1/companies/${buyer.id}/credit-notes/${file.documents[0].id}`);
  t.like(note, { number: 'NC3', currency: 'USD', sub_total: '12600.06', vat: '2394.01', total: '14994.07' });
  t.truthy(note.referenced_document?.number);
  t.deepEqual(note.files.pdf, { status: 'none', source: null }, 'a credit note XML has no PDF');
  const updated = await eventually(() => eventsOfType('contact.updated').find((event) => event.data.id === note.contact.id));
  t.is(updated.data.name, 'FACTURADOR DE EJEMPLO');
});

test.serial('a credit note correcting two invoices shows both references through the API, in the order written', async (t) => {
  const accepted = await upload(api.url, key, buyer.id, { name: 'nc-two-invoices.xml', bytes: Buffer.from(creditNoteReferencingTwoInvoices()) });
  const file = await waitForImport(api.url, key, buyer.id, accepted.body.id);
  t.is(file.status, 'DONE', JSON.stringify(file));
  const note = await getJson(`/v1/companies/${buyer.id}/credit-notes/${file.documents[0].id}`);
  t.is(note.number, 'NC3-2REF');
  t.deepEqual(
    note.referenced_documents,
    TWO_REFERENCES.map((reference) => ({ number: reference.number, cufe: reference.cufe, issue_date: reference.issueDate })),
  );
  t.deepEqual(note.referenced_document, { number: TWO_REFERENCES[0].number, cufe: TWO_REFERENCES[0].cufe }, 'the first, as before');
  const listed = await getJson(`/v1/companies/${buyer.id}/credit-notes?limit=100`);
  t.deepEqual(listed.data.find((entry: { id: number }) => entry.id === note.id).referenced_documents, note.referenced_documents);
});

test.serial('reclassify gives a note stored before referenced_documents every document it corrects', async (t) => {
  const accepted = await upload(api.url, key, buyer.id, { name: 'nc-two-invoices-legacy.xml', bytes: Buffer.from(creditNoteReferencingTwoInvoices('NC3-LEGACY', 'cafecafe')) });
  const file = await waitForImport(api.url, key, buyer.id, accepted.body.id);
  t.is(file.status, 'DONE', JSON.stringify(file));
  const noteId = file.documents[0].id as number;
  // As migration 20261125160000 left a note imported before it: only its first reference, and
  // (imported before 20261125170000 too) totals never checked.
  const [first] = TWO_REFERENCES;
  await api.database.db('documents').where({ id: noteId, company_id: buyer.id }).update({
    referenced_documents: JSON.stringify([first]),
    warnings: null,
  });
  t.is((await getJson(`/v1/companies/${buyer.id}/credit-notes/${noteId}`)).referenced_documents.length, 1);

  const outcome = await reclassifyFromOriginals({ repositories: api.dependencies.repositories, blobStore: api.dependencies.blobStore }, { companyId: buyer.id });
  t.like(outcome, { updated: 1, unreadable: [] });
  const note = await getJson(`/v1/companies/${buyer.id}/credit-notes/${noteId}`);
  t.deepEqual(
    note.referenced_documents,
    TWO_REFERENCES.map((reference) => ({ number: reference.number, cufe: reference.cufe, issue_date: reference.issueDate })),
  );
  t.deepEqual(note.warnings, []);
});

test.serial('a debit note is filed as a debit note, not as an invoice or credit note', async (t) => {
  const accepted = await upload(api.url, key, buyer.id, { name: 'nd.xml', bytes: fixture('debitnote.xml') });
  const file = await waitForImport(api.url, key, buyer.id, accepted.body.id);
  t.is(file.status, 'DONE');
  t.is(file.documents[0].kind, 'debit_note');
  const note = await getJson(`/v1/companies/${buyer.id}/debit-notes/${file.documents[0].id}`);
  t.like(note, { number: 'ND1', total: '14994.07' });
});

test.serial('a ZIP with XML and PDF: the document keeps the ZIP as original and offers the PDF inside', async (t) => {
  const pdfBytes = await simplePdf('Representación gráfica SETP990000001');
  const zip = zipOf([{ name: 'ad0900108281.xml', data: fixture('toolbox-excluded-vat.xml') }, { name: 'ad0900108281.pdf', data: pdfBytes }]);
  const accepted = await upload(api.url, key, buyer.id, { name: 'z.zip', bytes: zip });
  const file = await waitForImport(api.url, key, buyer.id, accepted.body.id);
  t.is(file.status, 'DONE', JSON.stringify(file));
  const invoice = await getJson(`/v1/companies/${buyer.id}/invoices/${file.documents[0].id}`);
  t.like(invoice, { number: 'SETP990000001', vat: '0.00', total: '50000.00' });
  t.like(invoice.files.original, { content_type: 'application/zip', extension: 'zip' });
  const pdf = await fetch(`${api.url}/v1/companies/${buyer.id}/invoices/${invoice.id}/pdf`, { headers: bearer(key), redirect: 'manual' });
  t.deepEqual(Buffer.from(await (await fetch(pdf.headers.get('location')!)).arrayBuffer()), pdfBytes);
});

test.serial('a document naming neither party as the company fails with company_not_a_party and document.import_failed', async (t) => {
  const accepted = await upload(api.url, key, buyer.id, { name: 'other.xml', bytes: fixture('toolbox-free-samples.xml') });
  const file = await waitForImport(api.url, key, buyer.id, accepted.body.id);
  t.like(file, { status: 'ERROR', documents: [] });
  t.is(file.error.code, 'company_not_a_party');
  const failed = await eventually(() => eventsOfType('document.import_failed').find((event) => event.data.id === accepted.body.id));
  t.like(failed.data, { status: 'ERROR', documents: [] });
});

test.serial('a sale: the company is the supplier, the customer becomes the contact', async (t) => {
  const seller = await seedCompany(api.database, 'Pruebas Factura', '2022516219');
  const accepted = await upload(api.url, key, seller.id, { name: 'sale.xml', bytes: fixture('toolbox-other-currency.xml') });
  const file = await waitForImport(api.url, key, seller.id, accepted.body.id);
  t.is(file.status, 'DONE', JSON.stringify(file));
  const invoice = await getJson(`/v1/companies/${seller.id}/invoices/${file.documents[0].id}`);
  t.like(invoice, { kind: 'sale', total: '3570000.00', vat: '570000.00' });
  t.is(invoice.contact.id_number, 154698949);
});

test.serial('a small file of a company without DIAN settings imports and publishes inside one workflow task: one local activity, no activity task (decision 0019)', async (t) => {
  // The seller of the test above: a company without DIAN settings (its document is skipped this time).
  const other = (await api.database.db('companies').where({ nit: '2022516219' }).first()) as { id: number };
  const accepted = await upload(api.url, key, other.id, { name: 'sale-again.xml', bytes: fixture('toolbox-other-currency.xml') });
  t.is((await waitForImport(api.url, key, other.id, accepted.body.id)).status, 'DONE');
  t.deepEqual(await importSteps(api.temporal.client, worker.taskQueue, accepted.body.id), { tasks: [], local: ['importAndPublishUploadedFile'], workflowTasks: 1 });
});

test.serial('a file over the inline limit imports as an activity task of its own, heartbeating (decision 0019)', async (t) => {
  const other = (await api.database.db('companies').where({ nit: '2022516219' }).first()) as { id: number };
  // The same sale behind a comment that takes it past the limit: a valid XML.
  const padded = paddedXml(fixture('toolbox-other-currency.xml'), INLINE_IMPORT_MAX_BYTES + 1);
  t.true(padded.length > INLINE_IMPORT_MAX_BYTES);
  const accepted = await upload(api.url, key, other.id, { name: 'sale-padded.xml', bytes: padded });
  t.is((await waitForImport(api.url, key, other.id, accepted.body.id)).status, 'DONE');
  t.deepEqual(await importSteps(api.temporal.client, worker.taskQueue, accepted.body.id), { tasks: ['importAndPublishUploadedFile'], local: [], workflowTasks: 2 });
});

test.serial('an AttachedDocument is unwrapped, and keeps DIAN validation', async (t) => {
  const company = await seedCompany(api.database, 'Jane Doe', '161803398875');
  const accepted = await upload(api.url, key, company.id, { name: 'ad.xml', bytes: fixture('attached-document-volt.xml') });
  const file = await waitForImport(api.url, key, company.id, accepted.body.id);
  t.is(file.status, 'DONE', JSON.stringify(file));
  const invoice = await getJson(`/v1/companies/${company.id}/invoices/${file.documents[0].id}`);
  t.like(invoice, { number: 'NC424', total: '1065000.00', vat: '0.00', kind: 'purchase' });
  const stored = await api.database.db('documents').where({ id: invoice.id }).first('dian_validation');
  t.truthy(stored.dian_validation, 'the ApplicationResponse validation is kept');
});

test.serial('a PDF declared as a payment-claim account becomes one, with its PDF available', async (t) => {
  const accepted = await upload(api.url, key, buyer.id, { name: 'cuenta-cobro-7.pdf', bytes: await simplePdf('Cuenta de cobro 7') }, { kind: 'payment_claim_account' });
  const file = await waitForImport(api.url, key, buyer.id, accepted.body.id);
  t.is(file.documents[0].kind, 'payment_claim_account');
  const claim = await getJson(`/v1/companies/${buyer.id}/payment-claim-accounts/${file.documents[0].id}`);
  t.deepEqual(claim.files.pdf, { status: 'available', source: 'original' });
  t.is(claim.number, 'cuenta-cobro-7');
});

test.serial('Idempotency-Key: a retried upload returns the first file; another file under the same key is 409', async (t) => {
  const bytes = fixture('toolbox-excluded-vat.xml');
  const first = await upload(api.url, key, buyer.id, { name: 'a.xml', bytes }, { idempotencyKey: 'upload-123' });
  const second = await upload(api.url, key, buyer.id, { name: 'a.xml', bytes }, { idempotencyKey: 'upload-123' });
  t.is(second.status, 202);
  t.is(second.body.id, first.body.id);
  t.is(second.headers.get('idempotent-replayed'), 'true');
  const conflict = await upload(api.url, key, buyer.id, { name: 'b.xml', bytes: fixture('debitnote.xml') }, { idempotencyKey: 'upload-123' });
  t.is(conflict.status, 409);
  t.is(conflict.body.error.code, 'idempotency_key_reused');
});

test('bad uploads are refused at the door with clear errors', async (t) => {
  const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
  const cases: [Buffer, number, string][] = [
    [png, 415, 'unsupported_file_type'],
    [Buffer.alloc(0), 400, 'empty_file'],
    [Buffer.alloc(20 * 1024 * 1024 + 10, 0x20), 413, 'file_too_large'],
  ];
  for (const [bytes, status, code] of cases) {
    const result = await upload(api.url, key, buyer.id, { name: 'x.xml', bytes });
    t.is(result.status, status, code);
    t.is(result.body.error.code, code);
  }
  const wrongKind = await upload(api.url, key, buyer.id, { name: 'x.pdf', bytes: await simplePdf('x') }, { kind: 'gift_card' });
  t.is(wrongKind.status, 400);
  t.is(wrongKind.body.error.param, 'kind');
  const notMultipart = await fetch(`${api.url}/v1/companies/${buyer.id}/files`, { method: 'POST', headers: { ...bearer(key), 'Content-Type': 'application/xml' }, body: '<x/>' });
  t.is(notMultipart.status, 415);
  const readOnly = (await seedKey(api.database, { scopes: ['documents:read'] })).key;
  t.is((await upload(api.url, readOnly, buyer.id, { name: 'x.xml', bytes: fixture('debitnote.xml') })).status, 403);
});

test('hostile files fail cleanly: a failed record, document.import_failed, no documents', async (t) => {
  const company = await seedCompany(api.database, 'Hostil S.A.S.', '860007738');
  const bomb = zipOf([{ name: 'bomb.xml', data: Buffer.alloc(30 * 1024 * 1024, 0x41) }]);
  const cases: [string, Buffer, string][] = [
    ['malformed.xml', Buffer.from('<Invoice><cbc:ID>1</Invoice>'), 'malformed_xml'],
    ['xxe.xml', Buffer.from('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]><Invoice>&e;</Invoice>'), 'forbidden_dtd'],
    ['bomb.zip', bomb, 'archive_too_large'],
    ['traversal.zip', zipOf([{ name: 'readme.txt', data: Buffer.from('nothing here') }]), 'no_documents_in_archive'],
    ['fake.pdf', Buffer.from('%PDF-1.4 not really a pdf'), 'invalid_pdf'],
  ];
  for (const [name, bytes, code] of cases) {
    const accepted = await upload(api.url, key, company.id, { name, bytes });
    t.is(accepted.status, 202, name);
    const file = await waitForImport(api.url, key, company.id, accepted.body.id);
    t.like(file, { status: 'ERROR', documents: [] }, name);
    t.is(file.error.code, code, name);
    t.truthy(file.error.message, name);
  }
  const documents = await api.database.db('documents').where({ company_id: company.id }).count<{ count: string }[]>({ count: '*' });
  t.is(Number(documents[0].count), 0);
});
