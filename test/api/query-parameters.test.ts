import test from 'ava';
import { SCOPES } from '../../domain/scopes';
import { bearer, jsonClient, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';

// Every /v1 route refuses a query parameter its operation does not declare, as the lists do
// (test/api/document-pagination.test.ts); the routes that are not lists ignored them.
let api: TestApi;
let call: ReturnType<typeof jsonClient>;
let company: { id: number };
let key: string;

test.before(async () => {
  api = await startTestApi();
  company = await seedCompany(api.database);
  ({ key } = await seedKey(api.database, { scopes: [...SCOPES], role: 'admin' }));
  call = jsonClient(api.url, key);
});
test.after.always(async () => api?.close());

test('a query parameter a route that is no list does not take is 400 naming it, and nothing is done', async (t) => {
  const created = await call('POST', `/v1/companies/${company.id}/webhooks`, { url: 'http://127.0.0.1:9/hook', events: [] });
  t.is(created.status, 201);
  const endpoint = created.body!.id as number;
  for (const [method, path, param, body] of [
    ['GET', '/v1/me?expand=companies', 'expand', undefined],
    ['GET', `/v1/companies/${company.id}?expand[]=contacts`, 'expand[]', undefined],
    ['GET', `/v1/webhooks/${endpoint}?include=secret`, 'include', undefined],
    ['GET', `/v1/companies/${company.id}/dian-settings?x=1`, 'x', undefined],
    // The body says disabled, the query says enabled: which one did it take?
    ['PATCH', `/v1/webhooks/${endpoint}?enabled=true`, 'enabled', { enabled: false }],
    ['POST', `/v1/companies/${company.id}/webhooks?events=webhook.test`, 'events', { url: 'http://127.0.0.1:9/other', events: [] }],
    ['DELETE', `/v1/webhooks/${endpoint}?force=true`, 'force', undefined],
  ] as const) {
    const result = await call(method, path, body);
    t.is(result.status, 400, `${method} ${path}`);
    t.is(result.body?.error.code, 'invalid_parameter', `${method} ${path}`);
    t.is(result.body?.error.param, param, `${method} ${path}`);
    t.true((result.body?.error.message as string).includes(`"${param}"`), result.body?.error.message);
  }
  // Nothing of the refused requests happened.
  const read = await call('GET', `/v1/webhooks/${endpoint}`);
  t.is(read.status, 200);
  t.true(read.body!.enabled);
  const endpoints = await call('GET', `/v1/companies/${company.id}/webhooks`);
  t.false((endpoints.body!.data as { url: string }[]).some((listed) => listed.url.endsWith('/other')));

  // HEAD is GET's operation: refused alike, without a body.
  const head = await fetch(`${api.url}/v1/me?expand=companies`, { method: 'HEAD', headers: bearer(key) });
  t.is(head.status, 400);
});

test('the parameters an operation declares still work, authentication still comes first, and an unknown path is still 404', async (t) => {
  t.is((await call('GET', `/v1/companies/${company.id}/invoices?limit=1&synced=false`)).status, 200);
  const endpoint = (await call('POST', `/v1/companies/${company.id}/webhooks`, { url: 'http://127.0.0.1:9/declared', events: [] })).body!.id as number;
  t.is((await call('GET', `/v1/webhooks/${endpoint}/deliveries?status=failed&limit=5`)).status, 200);
  const anonymous = await fetch(`${api.url}/v1/me?expand=companies`);
  t.is(anonymous.status, 401);
  t.is((await call('GET', '/v1/nothing-here?x=1')).status, 404);
  t.is((await fetch(`${api.url}/healthz?deep=false`)).status, 200);
});
