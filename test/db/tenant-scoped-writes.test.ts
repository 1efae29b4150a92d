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
  t.is(await endpoints.replaceSecrets(other.id, endpoint.id, []), undefined);
  await endpoints.softDelete(other.id, endpoint.id);
  t.like(await endpoints.findById(endpoint.id), { url: 'https://example.com/hook', enabled: true, deleted_at: null, secrets: [secret] });

  t.like(await endpoints.update(owner.id, endpoint.id, { url: 'https://example.com/new' }), { url: 'https://example.com/new' });
  t.like(await endpoints.setEnabled(owner.id, endpoint.id, false), { enabled: false });
  await endpoints.softDelete(owner.id, endpoint.id);
  t.truthy((await endpoints.findById(endpoint.id))?.deleted_at);
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
