import test from 'ava';
import { seedCompany } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';

// A DIAN event's 8 attempts count DIAN's transient failures in its row (activities/dian-events.ts
// countingDianFailures), per workflow run: a reset by an operator starts a new run, which must get
// its 8 again instead of failing at its first failure with the count the last run left.
let database: TestDatabase;

test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => database?.drop());

test('DIAN failures are counted per workflow run: a new run counts from 1', async (t) => {
  const company = await seedCompany(database, 'Reintentos S.A.S.', '800197268');
  const [document] = await database.db('documents')
    .insert({ company_id: company.id, document_type: 'electronic_invoice', kind: 'purchase', number: 'F1', issued_at: new Date(), original_blob_key: 'k', original_file_name: 'f.xml', original_extension: 'xml', original_content_type: 'application/xml', original_size: 1 })
    .returning('id');
  const { dianEvents } = database.repositories;
  const event = await dianEvents.insert(company.id, document.id, '030', null, '');
  const counts: number[] = [];
  for (let attempt = 0; attempt < 8; attempt += 1) counts.push(await dianEvents.countRetryableFailure(event.id, 'run-1'));
  t.deepEqual(counts, [1, 2, 3, 4, 5, 6, 7, 8]);
  t.is(await dianEvents.countRetryableFailure(event.id, 'run-2'), 1, 'the reset run starts its own count');
  t.is(await dianEvents.countRetryableFailure(event.id, 'run-2'), 2);
  t.like(await database.db('dian_events').where({ id: event.id }).first(), { retryable_failures: 2, retryable_failures_run: 'run-2' });
});
