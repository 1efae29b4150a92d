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

test('a new event is recorded with its deliveries in one statement: subscribed, enabled, live endpoints only; a repeat finds the same', async (t) => {
  const company = await seedCompany(database, 'Suscritos S.A.S.', '900123459');
  const other = await seedCompany(database, 'Otra S.A.S.', '900123460');
  const endpoint = (companyId: number, n: number, events: string[], extra: object = {}) =>
    ({ company_id: companyId, url: `https://example.com/hook/${n}`, events, secrets: JSON.stringify([]), ...extra });
  const rows: { id: number }[] = await database.db('webhook_endpoints')
    .insert([
      endpoint(company.id, 1, []), // every type
      endpoint(company.id, 2, ['document.imported', 'contact.created']),
      endpoint(company.id, 3, ['contact.updated']), // not subscribed
      endpoint(company.id, 4, [], { enabled: false }),
      endpoint(company.id, 5, [], { deleted_at: database.db.fn.now() }),
      endpoint(other.id, 6, []), // another company's
    ])
    .returning('id');
  const [all, imported] = rows.map((row) => row.id);
  const { events, webhookDeliveries } = database.repositories;
  const id = randomUUID();
  const data = { id: 9, file_name: 'a.xml' };

  // Tests of this file run concurrently: count the statements that carry this event's id.
  let statements = 0;
  const countStatement = (query: { bindings?: unknown[] }) => void (query.bindings?.includes(id) && statements++);
  database.db.on('query', countStatement);
  const first = await events.recordWithDeliveries({ id, companyId: company.id, type: 'document.imported', data }).finally(() => database.db.off('query', countStatement));
  t.is(statements, 1, 'one statement');
  t.truthy(first);
  t.deepEqual(first!.deliveries.map((delivery) => delivery.endpoint_id), [all, imported]);
  const row = await rowOf(id);
  t.is(first!.event.payload, row.payload);
  t.deepEqual(JSON.parse(first!.event.payload), { id, type: 'document.imported', created_at: row.created_at_text, company_id: company.id, data });
  const stored = await database.db('webhook_deliveries').where({ event_id: id }).orderBy('id').select('id', 'endpoint_id', 'event_type', 'status');
  t.deepEqual(stored, first!.deliveries.map((delivery) => ({ ...delivery, event_type: 'document.imported', status: 'pending' })));

  // The repeat (a retried activity) is told to take the step-by-step path, which finds the same rows.
  t.is(await events.recordWithDeliveries({ id, companyId: company.id, type: 'document.imported', data }), undefined);
  const again = await events.record({ id, companyId: company.id, type: 'document.imported', data });
  t.deepEqual(again, first!.event);
  t.deepEqual(await webhookDeliveries.createForEvent(again, [all, imported]), first!.deliveries);

  const none = await events.recordWithDeliveries({ id: randomUUID(), companyId: company.id, type: 'export.succeeded', data: {} });
  t.deepEqual(none?.deliveries.map((delivery) => delivery.endpoint_id), [all], 'only the endpoint subscribed to every type');
});

