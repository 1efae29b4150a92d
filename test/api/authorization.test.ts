import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import Router from '@koa/router';
import pino from 'pino';
import { authenticate, requireRole, requireScope } from '../../api/middleware/authenticate';
import { loadCompany } from '../../api/middleware/company-scope';
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

async function call(key: string, id = companyId) {
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
