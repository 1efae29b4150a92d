import { randomUUID } from 'node:crypto';
import test from 'ava';
import { seedCompany } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';

// Publishing records an event with its delivery body and one delivery per endpoint in one
// statement each; a repeat (a retried activity) must find what the first call wrote.
let database: TestDatabase;

test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => database?.drop());

async function rowOf(id: string) {
  return database.db('events')
    .where({ id })
    .first('payload', 'data', database.db.raw(`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') AS created_at_text`));
}

test('the body is the event as recorded, with the row created_at in microseconds, and a repeat returns it unchanged', async (t) => {
  const company = await seedCompany(database, 'Cuerpos S.A.S.', '900123456');
  const id = randomUUID();
  const data = { id: 7, file_name: 'factura "1".xml', documents: [{ id: 1, cufe: 'ab' }], note: 'ñandú ✓' };
  const first = await database.repositories.events.record({ id, companyId: company.id, type: 'document.imported', data });
  const row = await rowOf(id);
  t.is(first.payload, row.payload);
  t.deepEqual(JSON.parse(first.payload), { id, type: 'document.imported', created_at: row.created_at_text, company_id: company.id, data });
  t.regex(row.created_at_text, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/);
  t.deepEqual(row.data, data);

  const again = await database.repositories.events.record({ id, companyId: company.id, type: 'document.imported', data: { changed: true } });
  t.deepEqual(again, first);
  t.is(await database.db('events').where({ id }).count('* as n').first().then((r) => Number(r!.n)), 1);
});

test('a row recorded without a body (before bodies were stored in the insert) gets one on the repeat', async (t) => {
  const company = await seedCompany(database, 'Antiguos S.A.S.', '900123457');
  const id = randomUUID();
  await database.db('events').insert({ id, company_id: company.id, type: 'contact.created', data: JSON.stringify({ id: 3, name: 'A' }) });
  const recorded = await database.repositories.events.record({ id, companyId: company.id, type: 'contact.created', data: { id: 3, name: 'A' } });
  const row = await rowOf(id);
  t.is(row.payload, recorded.payload);
  t.deepEqual(JSON.parse(recorded.payload), { id, type: 'contact.created', created_at: row.created_at_text, company_id: company.id, data: { id: 3, name: 'A' } });
});

test('deliveries are created once per endpoint; a repeat returns the same ones, and no endpoint gets none', async (t) => {
  const company = await seedCompany(database, 'Entregas S.A.S.', '900123458');
  const endpoints = await database.db('webhook_endpoints')
    .insert([1, 2, 3].map((n) => ({ company_id: company.id, url: `https://example.com/hook/${n}`, events: [], secrets: JSON.stringify([]) })))
    .returning('id');
  const event = await database.repositories.events.record({ id: randomUUID(), companyId: company.id, type: 'document.imported', data: {} });
  const { webhookDeliveries } = database.repositories;
  const ids = endpoints.map((endpoint: { id: number }) => endpoint.id);

  const first = await webhookDeliveries.createForEvent(event, ids.slice(0, 2));
  t.deepEqual(first.map((row) => row.endpoint_id).sort(), ids.slice(0, 2).sort());
  // A repeat that also reaches a third endpoint: the two existing rows plus one new.
  const second = await webhookDeliveries.createForEvent(event, ids);
  t.is(second.length, 3);
  for (const row of first) t.truthy(second.find((other) => other.id === row.id && other.endpoint_id === row.endpoint_id));
  t.deepEqual(await webhookDeliveries.createForEvent(event, []), []);
  t.is(await database.db('webhook_deliveries').where({ event_id: event.id }).count('* as n').first().then((r) => Number(r!.n)), 3);
});
