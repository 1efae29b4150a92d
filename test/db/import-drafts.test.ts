import path from 'node:path';
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { planImport, type DocumentDraft } from '../../domain/ingestion/plan-import';
import { seedCompany } from '../support/api';
import { isDataException } from '../../db/errors';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { fixture } from '../support/ingestion';
import { up as lowerCaseUniqueCodes } from '../../db/migrations/20261125090000_lower_case_unique_codes';
import { fillFromFirstReference } from '../../db/migrations/20261125160000_document_referenced_documents';

// importDrafts returns the documents it linked to the file, so the import's event record needs
// no read of them: the list must be what documentsOf reads, whatever the drafts were.
let database: TestDatabase;

test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => database?.drop());

const CUSTOMER_NIT = '161803398875';

function draftsOf(bytes: Buffer, fileName: string, companyNit: string, pdfKind: 'electronic_invoice' | null = null): DocumentDraft[] {
  const plan = planImport(bytes, fileName, companyNit, pdfKind);
  if (!plan.ok) throw new Error(`${plan.code}: ${plan.message}`);
  return plan.drafts;
}

async function storedFile(companyId: number, fileName: string) {
  return database.repositories.uploadedFiles.insert({
    company_id: companyId, type: 'API', file_name: fileName, extension: path.extname(fileName).slice(1), content_type: 'application/octet-stream',
    size: 1, sha256: 'x'.repeat(64), blob_key: `k/${randomUUID()}`,
  });
}

test('the documents importDrafts returns are the ones documentsOf reads: created, already stored, repeated, bare PDF', async (t) => {
  const { uploadedFiles, imports } = database.repositories;
  const company = await seedCompany(database, 'Volt Compras S.A.S.', CUSTOMER_NIT);
  const xml = fixture('attached-document-volt.xml');
  const [invoice] = draftsOf(xml, 'volt.xml', CUSTOMER_NIT);
  const [pdf] = draftsOf(Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\nstartxref\n9\n%%EOF\n'), 'factura-77.pdf', CUSTOMER_NIT, 'electronic_invoice');

  const first = await storedFile(company.id, 'volt.xml');
  const created = await imports.importDrafts(first, [invoice!]);
  t.is(created.documents.length, 1);
  t.is(created.documents[0]!.cufe, invoice!.ubl!.cufe);
  t.is(created.documents[0]!.kind, 'electronic_invoice');
  t.deepEqual(created.documents, (await uploadedFiles.documentsOf([first.id])).get(first.id));

  // The same invoice again (a second upload), in a file with the same draft twice and a bare PDF.
  const second = await storedFile(company.id, 'mixed.zip');
  const mixed = await imports.importDrafts(second, [pdf!, invoice!, invoice!]);
  t.is(mixed.skipped.length, 2, 'the stored invoice is skipped for each draft naming it');
  t.is(mixed.documents.length, 2, 'each linked document once');
  t.deepEqual(mixed.documents, (await uploadedFiles.documentsOf([second.id])).get(second.id));
  t.deepEqual(mixed.documents.map((document) => document.id), [created.documents[0]!.id, mixed.created[0]!.id].sort((a, b) => a - b));

  // A retried import of either file finds what its earlier attempt wrote: the same list, and
  // the bare PDF (no CUFE, no unique key) is not stored a second time.
  t.deepEqual((await imports.importDrafts(first, [invoice!])).documents, created.documents);
  const retried = await imports.importDrafts(second, [pdf!, invoice!, invoice!]);
  t.deepEqual(retried.documents, mixed.documents);
  t.deepEqual(retried.created, mixed.created, "the PDF is reported as this file's document again");
  t.is(await database.db('documents').where({ imported_file_id: second.id }).count('* as n').first().then((row) => Number(row!.n)), 1);
});

test('the same invoice with its CUFE in upper case is the stored document (skipped), not a second one', async (t) => {
  // A database of its own: the invoice's customer NIT is the other tests' company, and NITs are unique.
  const own = await createTestDatabase();
  t.teardown(() => own.drop());
  const company = await seedCompany(own, 'Volt Mayúsculas S.A.S.', CUSTOMER_NIT);
  const file = (name: string) => own.repositories.uploadedFiles.insert({
    company_id: company.id, type: 'API', file_name: name, extension: 'xml', content_type: 'application/xml', size: 1, sha256: 'x'.repeat(64), blob_key: `k/${randomUUID()}`,
  });
  const xml = fixture('attached-document-volt.xml').toString('utf8');
  const [invoice] = draftsOf(Buffer.from(xml), 'volt.xml', CUSTOMER_NIT);
  const created = await own.repositories.imports.importDrafts(await file('volt.xml'), [invoice!]);
  const upper = xml.replace(/(<cbc:UUID[^>]*>)([0-9a-f]{96})(<\/cbc:UUID>)/g, (_, open: string, code: string, close: string) => `${open}${code.toUpperCase()}${close}`);
  t.not(upper, xml);
  const [shouted] = draftsOf(Buffer.from(upper), 'VOLT.xml', CUSTOMER_NIT);
  const again = await own.repositories.imports.importDrafts(await file('VOLT.xml'), [shouted!]);
  t.deepEqual(again.created, []);
  t.deepEqual(again.skipped, [{ cufe: invoice!.ubl!.cufe, existing_document_id: created.created[0]!.id, kind: 'electronic_invoice' }]);
});

test('the migration to lower-case codes lowers stored upper-case CUFEs and references, and leaves a duplicate it cannot merge', async (t) => {
  const company = await seedCompany(database, 'Antes S.A.S.', '900000777');
  const file = await storedFile(company.id, 'old.xml');
  const code = (digit: string) => digit.repeat(96);
  const insert = (cufe: string, extra: Record<string, unknown> = {}) =>
    database.db('documents').insert({ company_id: company.id, kind: 'purchase', document_type: 'electronic_invoice', number: cufe.slice(0, 8), cufe, issued_at: new Date(), sub_total: '1', vat: '0', total: '1', currency: 'COP', imported_file_id: file.id, ...extra }).returning('id').then(([row]) => row.id as number);
  const lone = await insert(code('A'), { referenced_document_cufe: code('B') });
  const twinLower = await insert(code('c'));
  const twinUpper = await insert(code('C'));
  const notHex = await insert('CONTINGENCIA-1');
  await lowerCaseUniqueCodes(database.db);
  const cufeOf = async (id: number) => (await database.db('documents').where({ id }).first('cufe', 'referenced_document_cufe'));
  t.deepEqual(await cufeOf(lone), { cufe: code('a'), referenced_document_cufe: code('b') });
  t.is((await cufeOf(twinLower)).cufe, code('c'));
  t.is((await cufeOf(twinUpper)).cufe, code('C'), 'its lower-case twin exists: left for an operator');
  t.is((await cufeOf(notHex)).cufe, 'CONTINGENCIA-1');
});

test('the migration to a list of references gives each stored note its one reference, and other documents none', async (t) => {
  const company = await seedCompany(database, 'Notas Antiguas S.A.S.', '900000778');
  const file = await storedFile(company.id, 'old-note.xml');
  const insert = (documentType: string, number: string, extra: Record<string, unknown> = {}) =>
    database.db('documents').insert({ company_id: company.id, kind: 'purchase', document_type: documentType, number, issued_at: new Date(), sub_total: '1', vat: '0', total: '1', currency: 'COP', imported_file_id: file.id, ...extra }).returning('id').then(([row]) => row.id as number);
  const note = await insert('credit_note', 'NC-OLD', { referenced_document_number: 'FE-1', referenced_document_cufe: 'a'.repeat(96) });
  const withoutCufe = await insert('debit_note', 'ND-OLD', { referenced_document_number: 'FE-2' });
  const invoice = await insert('electronic_invoice', 'FE-3');
  await fillFromFirstReference(database.db);
  const referencesOf = async (id: number) => (await database.db('documents').where({ id }).first('referenced_documents')).referenced_documents;
  t.deepEqual(await referencesOf(note), [{ number: 'FE-1', cufe: 'a'.repeat(96), issueDate: null }]);
  t.deepEqual(await referencesOf(withoutCufe), [{ number: 'FE-2', cufe: null, issueDate: null }]);
  t.deepEqual(await referencesOf(invoice), []);
});

test('a recurring contact is found in one statement; a new one is created once, even by two imports at once', async (t) => {
  const { imports } = database.repositories;
  const company = await seedCompany(database, 'Volt Contactos S.A.S.', '161803398876');
  // The fixture's drafts (planned for its customer), imported for this company with other CUFEs and supplier.
  const [template] = draftsOf(fixture('attached-document-volt.xml'), 'volt.xml', CUSTOMER_NIT);
  const supplierId = `9${Date.now() % 100_000_000}`;
  const draft = (cufe: string, changes: Partial<NonNullable<DocumentDraft['counterpart']>> = {}): DocumentDraft => ({
    ...template!,
    ubl: { ...template!.ubl!, cufe },
    counterpart: { ...template!.counterpart!, idNumber: supplierId, ...changes },
  });

  // Two imports of the same new supplier at once: one contact, one contact.created.
  const [a, b] = await Promise.all([storedFile(company.id, 'a.xml'), storedFile(company.id, 'b.xml')]);
  const results = await Promise.all([imports.importDrafts(a, [draft(`cufe-a-${supplierId}`)]), imports.importDrafts(b, [draft(`cufe-b-${supplierId}`)])]);
  const changes = results.flatMap((result) => result.contactChanges);
  t.is(changes.filter((change) => change.type === 'contact.created').length, 1);
  t.is(changes.filter((change) => change.type === 'contact.updated').length, 0, 'the same data changes nothing');
  const contacts = await database.db('contacts').where({ company_id: company.id, id_number: supplierId }).select('id', 'email');
  t.is(contacts.length, 1);

  // The supplier again with the same data: its lookup is the only contact statement.
  const c = await storedFile(company.id, 'c.xml');
  const contactStatements: string[] = [];
  // Tests of this file run concurrently: count the contact statements naming this supplier.
  const countContactStatement = (query: { sql: string; bindings?: unknown[] }) =>
    void (query.sql.includes('"contacts"') && query.bindings?.includes(supplierId) && contactStatements.push(query.sql));
  database.db.on('query', countContactStatement);
  const again = await imports.importDrafts(c, [draft(`cufe-c-${supplierId}`)]).finally(() => database.db.off('query', countContactStatement));
  t.deepEqual(again.contactChanges, []);
  t.is(contactStatements.length, 1, contactStatements.join('\n'));

  // With a new email: contact.updated, and the email stored.
  const d = await storedFile(company.id, 'd.xml');
  const updated = await imports.importDrafts(d, [draft(`cufe-d-${supplierId}`, { email: 'nuevo@proveedor.co' })]);
  t.deepEqual(updated.contactChanges, [{ type: 'contact.updated', contactId: contacts[0]!.id }]);
  t.is((await database.db('contacts').where({ id: contacts[0]!.id }).first('email')).email, 'nuevo@proveedor.co');
});

test('an older document never brings back a contact\'s old data; it only fills what the contact lacks', async (t) => {
  const { imports } = database.repositories;
  const company = await seedCompany(database, 'Volt Historia S.A.S.', '161803398879');
  const [template] = draftsOf(fixture('attached-document-volt.xml'), 'volt.xml', CUSTOMER_NIT);
  const supplierId = `8${Date.now() % 100_000_000}`;
  const draft = (cufe: string, issuedAt: string, changes: Partial<NonNullable<DocumentDraft['counterpart']>>): DocumentDraft => ({
    ...template!,
    ubl: { ...template!.ubl!, cufe, issuedAt },
    counterpart: { ...template!.counterpart!, idNumber: supplierId, ...changes },
  });
  const contact = () => database.db('contacts').where({ company_id: company.id, id_number: supplierId }).first('id', 'name', 'email', 'phone', 'data_as_of');
  const importOne = async (name: string, document: DocumentDraft) => imports.importDrafts(await storedFile(company.id, name), [document]);

  await importOne('2026.xml', draft(`cufe-2026-${supplierId}`, '2026-03-01T10:00:00-05:00', { name: 'Proveedor Nuevo S.A.S.', email: null, phone: '6015550000' }));
  const created = await contact();
  t.like(created, { name: 'Proveedor Nuevo S.A.S.', email: null });
  t.is(created.data_as_of.toISOString(), '2026-03-01T15:00:00.000Z');

  // Last year's invoice (a DIAN import of 2025, a late upload): its old name and phone stay out,
  // the email the contact lacked comes in.
  const older = await importOne('2025.xml', draft(`cufe-2025-${supplierId}`, '2025-06-01T10:00:00-05:00', { name: 'Proveedor Viejo Ltda.', email: 'viejo@proveedor.co', phone: '6014440000' }));
  t.deepEqual(older.contactChanges, [{ type: 'contact.updated', contactId: created.id }]);
  t.like(await contact(), { name: 'Proveedor Nuevo S.A.S.', email: 'viejo@proveedor.co', phone: '6015550000' });
  t.is((await contact()).data_as_of.toISOString(), '2026-03-01T15:00:00.000Z', 'still as of the newest document');

  // An older one with nothing new: no event.
  t.deepEqual((await importOne('2024.xml', draft(`cufe-2024-${supplierId}`, '2024-01-01T10:00:00-05:00', { name: 'Otro Nombre' }))).contactChanges, []);

  // A newer document with the same data confirms it as of its date: a document between the two
  // is then older and changes nothing.
  await importOne('2026-09.xml', draft(`cufe-2026-09-${supplierId}`, '2026-09-01T10:00:00-05:00', { name: 'Proveedor Nuevo S.A.S.', email: 'viejo@proveedor.co', phone: '6015550000' }));
  t.is((await contact()).data_as_of.toISOString(), '2026-09-01T15:00:00.000Z');
  await importOne('2026-06.xml', draft(`cufe-2026-06-${supplierId}`, '2026-06-01T10:00:00-05:00', { name: 'Proveedor Intermedio S.A.S.' }));
  t.is((await contact()).name, 'Proveedor Nuevo S.A.S.');

  // A newer document with new data replaces it.
  const newest = await importOne('2027.xml', draft(`cufe-2027-${supplierId}`, '2027-01-15T10:00:00-05:00', { name: 'Proveedor Renombrado S.A.S.', email: 'nuevo@proveedor.co' }));
  t.deepEqual(newest.contactChanges, [{ type: 'contact.updated', contactId: created.id }]);
  t.like(await contact(), { name: 'Proveedor Renombrado S.A.S.', email: 'nuevo@proveedor.co' });
});

// Serial: the statements are told apart by the file's id, a small number other tests' statements may bind too.
test.serial('a new document is inserted and linked to its file in one statement; a repeated one is linked on its own', async (t) => {
  const { uploadedFiles, imports } = database.repositories;
  const company = await seedCompany(database, 'Volt Enlaces S.A.S.', '161803398877');
  const [template] = draftsOf(fixture('attached-document-volt.xml'), 'volt.xml', CUSTOMER_NIT);
  const invoice: DocumentDraft = { ...template!, ubl: { ...template!.ubl!, cufe: `cufe-link-${randomUUID()}` } };

  // The statements that write documents or links with this file's id.
  const writesOf = async (file: { id: number }, action: () => Promise<unknown>) => {
    const writes: string[] = [];
    const record = (query: { sql: string; bindings?: unknown[] }) =>
      void (/insert into "?(documents|uploaded_file_documents)/i.test(query.sql) && query.bindings?.includes(file.id) && writes.push(query.sql));
    database.db.on('query', record);
    await action().finally(() => database.db.off('query', record));
    return writes;
  };

  const first = await storedFile(company.id, 'first.xml');
  const created = await writesOf(first, () => imports.importDrafts(first, [invoice]));
  t.is(created.length, 1, created.join('\n'));
  t.regex(created[0]!, /insert into "documents".*INSERT INTO uploaded_file_documents/s);
  const [document] = (await uploadedFiles.documentsOf([first.id])).get(first.id) ?? [];
  t.is(document?.cufe, invoice.ubl!.cufe, 'the inserted document is linked to its file');

  const second = await storedFile(company.id, 'second.xml');
  const repeated = await writesOf(second, () => imports.importDrafts(second, [invoice]));
  t.is(repeated.length, 2, 'the insert that finds the CUFE stored, then the link on its own');
  t.deepEqual((await uploadedFiles.documentsOf([second.id])).get(second.id)?.map((entry) => entry.id), [document!.id]);
  // A retry links nothing twice.
  await imports.importDrafts(second, [invoice]);
  t.is(Number((await database.db('uploaded_file_documents').where({ file_id: second.id }).count('* as n').first())!.n), 1);
});

test('a value Postgres cannot store fails importDrafts as a data exception (SQLSTATE class 22) and stores nothing: the import marks it unstorable_value instead of retrying', async (t) => {
  const company = await seedCompany(database, 'Datos Raros S.A.S.', '161803398878');
  const [invoice] = draftsOf(fixture('attached-document-volt.xml'), 'volt.xml', CUSTOMER_NIT);
  // Values the parser now refuses, built past it: a NUL in a name, an amount beyond numeric(18,2).
  const withNul: DocumentDraft = { ...invoice!, counterpart: { ...invoice!.counterpart!, name: 'VOLT\u0000' }, ubl: { ...invoice!.ubl!, cufe: `nul-${randomUUID()}` } };
  const overflowing: DocumentDraft = { ...invoice!, ubl: { ...invoice!.ubl!, cufe: `big-${randomUUID()}`, total: '12345678901234567.00' } };
  for (const draft of [withNul, overflowing]) {
    const file = await storedFile(company.id, 'odd.xml');
    const error = await t.throwsAsync(database.repositories.imports.importDrafts(file, [draft]));
    t.true(isDataException(error), `${(error as { code?: string }).code}: ${error?.message}`);
    t.false(isDataException(new Error('connection terminated unexpectedly')));
    t.deepEqual((await database.repositories.uploadedFiles.documentsOf([file.id])).get(file.id) ?? [], []);
  }
});
