import { randomUUID } from 'node:crypto';
import test from 'ava';
import { connectDatabase, type Database } from '../../db/connection';
import { MAX_REMEMBERED_NAMES, PREPARED, rememberedStatementNames, statementName } from '../../db/prepared-statement';
import { createRepositories } from '../../db/repositories';
import { seedCompany } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';

// Statements marked PREPARED run as named prepared statements (db/prepared-statement.ts): parsed
// and planned once per connection. One connection here, so pg_prepared_statements shows its own.
let database: TestDatabase;
let single: Database;

test.before(async () => {
  database = await createTestDatabase();
  single = connectDatabase(database.url, 1);
});
test.after.always(async () => {
  await single?.destroy();
  await database?.drop();
});

async function preparedOnTheConnection(): Promise<{ name: string; statement: string }[]> {
  const { rows } = await single.raw<{ rows: { name: string; statement: string }[] }>('SELECT name, statement FROM pg_prepared_statements ORDER BY name');
  return rows;
}

test.serial('a marked query is prepared once under a name taken from its text, and answers with each call\'s values', async (t) => {
  const first = await single.raw<{ rows: { n: number }[] }>('SELECT ?::int + 1 AS n', [1]).options(PREPARED);
  const second = await single.raw<{ rows: { n: number }[] }>('SELECT ?::int + 1 AS n', [41]).options(PREPARED);
  t.is(first.rows[0]!.n, 2);
  t.is(second.rows[0]!.n, 42);
  const prepared = await preparedOnTheConnection();
  t.deepEqual(prepared, [{ name: statementName('SELECT $1::int + 1 AS n'), statement: 'SELECT $1::int + 1 AS n' }]);
});

test.serial('unmarked queries are not prepared, and another text gets another name', async (t) => {
  await single.raw('SELECT ?::int * 2 AS n', [3]);
  t.is((await preparedOnTheConnection()).length, 1);
  const doubled = await single.raw<{ rows: { n: number }[] }>('SELECT ?::int * 2 AS n', [3]).options(PREPARED);
  t.is(doubled.rows[0]!.n, 6);
  const names = (await preparedOnTheConnection()).map((row) => row.name);
  t.is(names.length, 2);
  t.true(names.includes(statementName('SELECT $1::int * 2 AS n')));
  t.not(statementName('SELECT $1::int * 2 AS n'), statementName('SELECT $1::int + 1 AS n'));
});

test.serial('query builders and transactions run marked statements prepared too, and their errors still reach the caller', async (t) => {
  const id = randomUUID();
  await single.transaction(async (trx) => {
    const row = await trx.select(trx.raw('?::uuid AS id', [id])).options(PREPARED).first();
    t.is(row.id, id);
  });
  t.true((await preparedOnTheConnection()).some((row) => row.statement === 'select $1::uuid AS id limit $2'));
  await t.throwsAsync(single.raw('SELECT ?::int AS n', ['not a number']).options(PREPARED), { message: /invalid input syntax for type integer/ });
  const after = await single.raw<{ rows: { n: number }[] }>('SELECT ?::int AS n', ['7']).options(PREPARED);
  t.is(after.rows[0]!.n, 7);
});

test('a delivery attempt\'s statements are prepared on the connection that ran them', async (t) => {
  const repositories = createRepositories(single);
  const context = await repositories.webhookDeliveries.attemptContext(-1, -1, randomUUID());
  t.deepEqual(context, { endpoint: null, deliveryStatus: null, payload: null });
  t.true((await preparedOnTheConnection()).some((row) => row.statement.includes('AS delivery_status')));
});

async function tableColumns(table: string): Promise<string[]> {
  const { rows } = await database.db.raw<{ rows: { column_name: string }[] }>(
    'SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY column_name',
    [table],
  );
  return rows.map((row) => row.column_name);
}

// The prepared reads name their columns (db/columns.ts) instead of `*`: a column a migration adds
// must be added to the row type and its list too, or these reads would silently leave it out.
test('the prepared reads return every column of their tables', async (t) => {
  const company = await seedCompany(database, 'Columnas S.A.S.', '900777111');
  const repositories = database.repositories;
  const sorted = (row: object | undefined) => Object.keys(row ?? {}).sort();

  t.deepEqual(sorted(await repositories.companies.findVisible({ allCompanies: true }, company.id)), await tableColumns('companies'));
  t.deepEqual(sorted(await repositories.companies.findVisible({ allCompanies: false, companyIds: [company.id] }, company.id)), await tableColumns('companies'));

  const file = await repositories.uploadedFiles.insert({
    company_id: company.id, type: 'API', file_name: 'a.xml', extension: 'xml', content_type: 'application/xml', size: 1, sha256: 'x'.repeat(64), blob_key: `k/${randomUUID()}`,
  });
  const fileColumns = await tableColumns('uploaded_files');
  t.deepEqual(sorted(file), fileColumns);
  t.deepEqual(sorted(await repositories.uploadedFiles.findById(file.id)), fileColumns);
  const importing = await repositories.uploadedFiles.markProcessing(file.id);
  t.deepEqual(sorted(importing), [...fileColumns, 'company_nit', 'dian_environment'].sort());
  t.is(importing?.company_nit, '900777111', 'the company NIT comes with the row');
  t.is(importing?.dian_environment, null, 'no DIAN settings: null');
  await repositories.dianSettings.upsert(company.id, {
    environment: 'simulator', software_id: 'software', software_pin_sealed: 'sealed', certificate_p12_sealed: 'sealed', certificate_password_sealed: 'sealed',
    certificate_subject: 'CN=Columnas', certificate_issuer: 'CN=CA', certificate_not_after: new Date('2030-01-01T00:00:00Z'),
  });
  t.is((await repositories.uploadedFiles.markProcessing(file.id))?.dian_environment, 'simulator', "the company's DIAN environment comes with the row");
  t.deepEqual(sorted(await repositories.uploadedFiles.markDone(file.id, [])), fileColumns);

  const secret = { sealed: 'sealed', created_at: new Date().toISOString(), expires_at: null };
  await repositories.webhookEndpoints.insertWithinLimit(company.id, 10, 'https://example.com/hook', ['document.imported'], secret);
  const [endpoint] = await repositories.webhookEndpoints.enabledForCompany(company.id);
  t.deepEqual(sorted(endpoint), await tableColumns('webhook_endpoints'));
});

test.serial('a text is named once and remembered; the remembered names are bounded, and a text keeps its name past the bound', (t) => {
  const text = `SELECT $1::int + 1 AS n -- ${Date.now()}`;
  const before = rememberedStatementNames();
  const first = statementName(text);
  t.is(rememberedStatementNames(), before + 1, 'a new text is remembered');
  t.is(statementName(text), first);
  t.is(rememberedStatementNames(), before + 1, 'the same text again is not hashed and remembered anew');
  const others = new Set(Array.from({ length: 2500 }, (_, index) => statementName(`SELECT ${index} AS n`)));
  t.is(others.size, 2500, 'every text its own name');
  t.true(rememberedStatementNames() <= MAX_REMEMBERED_NAMES, `${rememberedStatementNames()} remembered`);
  t.is(statementName(text), first, 'the same name after the remembered names were cleared');
  t.regex(first, /^invoicing_[A-Za-z0-9_-]{24}$/);
});
