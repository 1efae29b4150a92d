import test from 'ava';
import { seedCompany } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { moved, scrapeThisProcess } from '../support/prometheus';

// Outcome metrics count a committed change of state once: the same write repeated (an activity
// retried after its write committed) leaves the counters alone, and a later real change counts.
let database: TestDatabase;

test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => database?.drop());

test('an import finished twice counts once; the row still takes the second write', async (t) => {
  const company = await seedCompany(database);
  const { uploadedFiles } = database.repositories;
  const file = await uploadedFiles.insert({
    company_id: company.id, type: 'EMAIL', file_name: 'a.xml', extension: 'xml', content_type: 'application/xml', size: 1, sha256: 'x', blob_key: 'k',
  });
  const before = await scrapeThisProcess();
  await uploadedFiles.markProcessing(file.id);
  await uploadedFiles.markFailed(file.id, 'invalid_xml', 'first');
  await uploadedFiles.markFailed(file.id, 'invalid_xml', 'again');
  const failed = await scrapeThisProcess();
  t.is(moved(before, failed, 'invoicing_imports_total', { type: 'email', outcome: 'failed' }), 1);
  t.like(await uploadedFiles.findById(file.id), { status: 'ERROR', error_message: 'again' });

  // A reset workflow that now imports the file: ERROR → DONE is a new outcome.
  await uploadedFiles.markDone(file.id, []);
  await uploadedFiles.markDone(file.id, []);
  const done = await scrapeThisProcess();
  t.is(moved(failed, done, 'invoicing_imports_total', { type: 'email', outcome: 'imported' }), 1);
  t.is(moved(failed, done, 'invoicing_imports_total', { type: 'email', outcome: 'failed' }), 0);
  t.like(await uploadedFiles.findById(file.id), { status: 'DONE', error_code: null });
});

test('a DIAN event succeeded twice counts once, and a late failure does not undo a success', async (t) => {
  const company = await seedCompany(database, 'Eventos S.A.S.', '800197268');
  const [document] = await database.db('documents')
    .insert({ company_id: company.id, document_type: 'electronic_invoice', kind: 'purchase', number: 'F1', issued_at: new Date(), original_blob_key: 'k', original_file_name: 'f.xml', original_extension: 'xml', original_content_type: 'application/xml', original_size: 1 })
    .returning('id');
  const event = await database.repositories.dianEvents.insert(company.id, document.id, '030', null, '');
  const before = await scrapeThisProcess();
  await database.repositories.dianEvents.markSucceeded(event.id, 'cude');
  await database.repositories.dianEvents.markSucceeded(event.id, 'cude');
  await database.repositories.dianEvents.markFailed(event.id, 'late', 'a retried failure after the success');
  const after = await scrapeThisProcess();
  t.is(moved(before, after, 'invoicing_dian_events_total', { event_code: '030', outcome: 'succeeded' }), 1);
  t.is(moved(before, after, 'invoicing_dian_events_total', { event_code: '030', outcome: 'failed' }), 0);
  t.like(await database.repositories.dianEvents.findById(event.id), { status: 'succeeded', cude: 'cude' });
});
