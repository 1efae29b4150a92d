import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import Router from '@koa/router';
import pino from 'pino';
import { authenticate, requireRole, requireScope, type AuthState } from '../../api/middleware/authenticate';
import { loadCompany, type CompanyState } from '../../api/middleware/company-scope';
import { revokeApiKey } from '../../admin/api-keys';
import { errorHandler } from '../../api/middleware/error-handler';
import { bearer, seedCompany, seedKey } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';

// Scope and role guards with real keys in a real database, mounted the way resource routers
// mount them (capability routes reuse exactly these middlewares).
let database: TestDatabase;
let server: http.Server;
let base: string;
let companyId: number;

test.before(async () => {
  database = await createTestDatabase();
  companyId = (await seedCompany(database)).id;
  const app = new Koa();
  app.silent = true;
  const router = new Router();
  router.use(authenticate(database.repositories.apiKeys));
  router.get(
    '/companies/:company_id/guarded',
    requireScope('webhooks:manage'),
    requireRole('admin'),
    loadCompany(database.repositories.companies),
    (ctx) => {
      ctx.body = { ok: true };
    },
  );
  app.use(errorHandler(pino({ level: 'silent' }))).use(router.routes());
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
test.after.always(async () => {
  server?.close();
  await database?.drop();
});

async function call(key: string, id: number | string = companyId) {
  const response = await fetch(`${base}/companies/${id}/guarded`, { headers: bearer(key) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

test('scope and role present → allowed', async (t) => {
  const { key } = await seedKey(database, { scopes: ['webhooks:manage'], role: 'admin' });
  t.deepEqual(await call(key), { status: 200, body: { ok: true } });
});

test('missing scope → 403 insufficient_scope naming the scope', async (t) => {
  const { key } = await seedKey(database, { scopes: ['documents:read'], role: 'admin' });
  const { status, body } = await call(key);
  t.is(status, 403);
  t.is(body.error.code, 'insufficient_scope');
  t.regex(body.error.message, /webhooks:manage/);
});

test('member role → 403 insufficient_role', async (t) => {
  const { key } = await seedKey(database, { scopes: ['webhooks:manage'], role: 'member' });
  const { status, body } = await call(key);
  t.is(status, 403);
  t.is(body.error.code, 'insufficient_role');
});

test('company outside the key list → 404 even with scope and role', async (t) => {
  const other = await seedCompany(database, 'Otra S.A.S.', '890903938');
  const { key } = await seedKey(database, { scopes: ['webhooks:manage'], role: 'admin', companyIds: [companyId] });
  t.is((await call(key, companyId)).status, 200);
  const { status, body } = await call(key, other.id);
  t.is(status, 404);
  t.is(body.error.code, 'not_found');
});

// The key and the company the path names are read in one statement (findWithCompany), and
// loadCompany answers from it: every company-scoped request costs Postgres one round trip here.
async function statementsDuring(action: () => Promise<unknown>): Promise<string[]> {
  const statements: string[] = [];
  const record = (query: { sql: string }) => statements.push(query.sql);
  database.db.on('query', record);
  try {
    await action();
  } finally {
    database.db.off('query', record);
  }
  return statements;
}

test.serial('a company-scoped request reads the key and the company in one statement', async (t) => {
  const { key } = await seedKey(database, { scopes: ['webhooks:manage'], role: 'admin', companyIds: [companyId] });
  let answer: Awaited<ReturnType<typeof call>> | undefined;
  const statements = await statementsDuring(async () => (answer = await call(key)));
  t.deepEqual(answer, { status: 200, body: { ok: true } });
  t.is(statements.length, 1, statements.join('\n'));
  t.regex(statements[0]!, /"api_keys".*"companies"/s);
});

test.serial('the company read with the key answers like findVisible: missing, hidden, all companies', async (t) => {
  const other = await seedCompany(database, 'Tercera S.A.S.', '800197268');
  const restricted = await seedKey(database, { companyIds: [companyId] });
  const everyCompany = await seedKey(database);
  const { apiKeys, companies } = database.repositories;

  const own = await apiKeys.findWithCompany(restricted.id, companyId);
  t.deepEqual(own?.company, await companies.findVisible({ allCompanies: true }, companyId));
  t.is(own?.key.id, restricted.id);
  t.deepEqual(own?.key.access, { allCompanies: false, companyIds: [companyId] });
  t.is((await apiKeys.findWithCompany(restricted.id, other.id))?.company, undefined, 'a company outside the key list is not returned');
  t.is((await apiKeys.findWithCompany(restricted.id, 2 ** 52))?.company, undefined, 'a company that does not exist');
  t.deepEqual((await apiKeys.findWithCompany(everyCompany.id, other.id))?.company, await companies.findVisible({ allCompanies: true }, other.id));
  t.is(await apiKeys.findWithCompany('no-such-key', companyId), undefined);
  t.deepEqual((await apiKeys.findWithCompany(everyCompany.id, companyId))?.key, await apiKeys.findById(everyCompany.id));
});

test.serial('a company id the path spells another way is still resolved by loadCompany', async (t) => {
  const { key } = await seedKey(database, { scopes: ['webhooks:manage'], role: 'admin', companyIds: [companyId] });
  // %3N is a digit to the router but not to the path pattern: the company is read on its own.
  const encoded = `%3${String(companyId).at(0)}${String(companyId).slice(1)}`;
  let status = 0;
  const statements = await statementsDuring(async () => (status = (await fetch(`${base}/companies/${encoded}/guarded`, { headers: bearer(key) })).status));
  t.is(status, 200);
  t.is(statements.length, 2);
  for (const id of [0, 2 ** 53]) t.like(await call(key, id), { status: 400, body: { error: { code: 'invalid_parameter', param: 'company_id' } } });
  // A leading zero is refused too, and the message says why (it is a number, just not spelt as one).
  const leadingZero = await call(key, `0${companyId}`);
  t.like(leadingZero, { status: 400, body: { error: { code: 'invalid_parameter', param: 'company_id' } } });
  t.regex(String(leadingZero.body.error.message), /leading zeros/);
});

test.serial('a revoked key on a company path is refused before anything of the company is used', async (t) => {
  const { id, key } = await seedKey(database, { scopes: ['webhooks:manage'], role: 'admin' });
  t.is((await call(key)).status, 200);
  await revokeApiKey(database.repositories, id);
  t.like(await call(key), { status: 401, body: { error: { code: 'api_key_revoked' } } });
});

test.serial('loadCompany uses the company read with the key only when it is the one the route names', async (t) => {
  const other = await seedCompany(database, 'Cuarta S.A.S.', '901234567');
  const { apiKeys, companies } = database.repositories;
  const { id } = await seedKey(database);
  const apiKey = (await apiKeys.findById(id))!;
  const otherRow = await companies.findVisible({ allCompanies: true }, other.id);
  const run = async (requestedCompany: AuthState['requestedCompany']) => {
    const ctx = { params: { company_id: String(companyId) }, state: { apiKey, requestedCompany } as CompanyState };
    let reached = false;
    await loadCompany(companies)(ctx as unknown as Parameters<ReturnType<typeof loadCompany>>[0], async () => { reached = true; });
    return { reached, company: ctx.state.company };
  };
  // Read with the key for another id: the route's own company is read instead.
  const { reached, company } = await run({ id: other.id, row: otherRow });
  t.true(reached);
  t.is(company.id, companyId);
  // Read with the key for this id: used as it is, even when it says none (hidden or missing).
  await t.throwsAsync(run({ id: companyId, row: undefined }), { message: new RegExp(`Company ${companyId}`) });
});
