import test from 'ava';
import { isUniqueViolation } from '../../db/errors';
import { seedCompany } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';

// Repository writes made on behalf of a client take the company: an id of another company
// changes nothing, whatever the caller checked before.
let database: TestDatabase;

test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => database?.drop());

const secret = { sealed: 'sealed', created_at: new Date().toISOString(), expires_at: null };

test('webhook endpoint writes with another company id leave the endpoint alone', async (t) => {
  const owner = await seedCompany(database, 'Owner S.A.S.', '900108281');
  const other = await seedCompany(database, 'Other S.A.S.', '800197268');
  const endpoints = database.repositories.webhookEndpoints;
  const endpoint = (await endpoints.insertWithinLimit(owner.id, 50, 'https://example.com/hook', [], secret))!;

  t.is(await endpoints.update(other.id, endpoint.id, { url: 'https://evil.example/hook' }), undefined);
  t.is(await endpoints.setEnabled(other.id, endpoint.id, false), undefined);
  t.is(await endpoints.changeSecrets(other.id, endpoint.id, () => ({ stored: [], result: null })), undefined);
  await endpoints.softDelete(other.id, endpoint.id);
  t.like(await endpoints.findById(endpoint.id), { url: 'https://example.com/hook', enabled: true, deleted_at: null, secrets: [secret] });

  t.like(await endpoints.update(owner.id, endpoint.id, { url: 'https://example.com/new' }), { url: 'https://example.com/new' });
  t.like(await endpoints.setEnabled(owner.id, endpoint.id, false), { enabled: false });
  await endpoints.softDelete(owner.id, endpoint.id);
  t.truthy((await endpoints.findById(endpoint.id))?.deleted_at);
});

test('resending failed deliveries with another company id resends nothing', async (t) => {
  const owner = await seedCompany(database, 'Resend Owner S.A.S.', '900123456');
  const other = await seedCompany(database, 'Resend Other S.A.S.', '800123456');
  const endpoint = (await database.repositories.webhookEndpoints.insertWithinLimit(owner.id, 50, 'https://example.com/resend', [], secret))!;
  const event = await database.repositories.events.record({ id: '6f1d3c2a-0d7e-4d8a-9f55-5a1c2b3d4e5f', companyId: owner.id, type: 'contact.created', data: {} });
  const [delivery] = await database.repositories.webhookDeliveries.createForEvent(event, [endpoint.id]);
  await database.repositories.webhookDeliveries.failIfPending(delivery.id, 'test');
  const deliveries = database.repositories.webhookDeliveries;

  t.deepEqual(await deliveries.resendFailed(other.id, endpoint.id, { deliveryId: delivery.id }), []);
  t.deepEqual(await deliveries.resendFailed(other.id, endpoint.id, { since: new Date(Date.now() - 60_000) }), []);
  t.is((await database.db('webhook_deliveries').whereNotNull('resend_of')).length, 0);

  const [resend] = await deliveries.resendFailed(owner.id, endpoint.id, { deliveryId: delivery.id });
  t.like(resend, { endpoint_id: endpoint.id, event_id: event.id, resend_of: delivery.id });
  t.deepEqual(await deliveries.resendFailed(owner.id, endpoint.id, { since: new Date(Date.now() - 60_000) }), [resend], 'once each: the pending resend, nothing new');
});

test('isUniqueViolation recognises 23505, optionally of one constraint', async (t) => {
  const company = await seedCompany(database, 'Unique S.A.S.', '860002964');
  const insert = () => database.db('integrations').insert({ company_id: company.id, name: 'dup', provider: 'alegra', credentials_encrypted: Buffer.from('x'), settings: '{}' });
  await insert();
  const error = await t.throwsAsync(insert());
  t.true(isUniqueViolation(error));
  t.false(isUniqueViolation(error, 'some_other_constraint'));
  t.true(isUniqueViolation(error, (error as { constraint?: string }).constraint));
  t.false(isUniqueViolation(new Error('not from Postgres')));
  t.false(isUniqueViolation(undefined));
});
