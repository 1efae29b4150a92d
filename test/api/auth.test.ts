import test from 'ava';
import { generateApiKey } from '../../domain/api-key';
import { revokeApiKey } from '../../admin/api-keys';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { rawExchange } from '../support/raw-http';

let api: TestApi;
let companyA: { id: number };
let companyB: { id: number };

test.before(async () => {
  api = await startTestApi();
  companyA = await seedCompany(api.database, 'Compras A S.A.S.', '900108281');
  companyB = await seedCompany(api.database, 'Compras B S.A.S.', '800197268');
});
test.after.always(async () => api?.close());

async function getJson(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.url}${path}`, { headers });
  const body = (await response.json()) as Record<string, any>;
  return { response, body };
}

test('no Authorization header → 401 authentication_required with a challenge', async (t) => {
  const { response, body } = await getJson('/v1/companies');
  t.is(response.status, 401);
  t.is(body.error.code, 'authentication_required');
  t.regex(body.error.message, /Authorization/);
  t.regex(response.headers.get('www-authenticate') ?? '', /^Bearer/);
  t.regex(response.headers.get('x-request-id') ?? '', /^req_[0-9a-f]{24}$/);
});

for (const [label, header] of [
  ['a Basic credential', 'Basic dXNlcjpwYXNz'],
  ['a bearer that is not a key', 'Bearer not-a-key'],
  ['a key of another environment', `Bearer ${generateApiKey('inv').fullKey.replace('_live_', '_test_')}`],
  ['a key with a truncated secret', `Bearer ${generateApiKey('inv').fullKey.slice(0, -2)}`],
  ['an empty bearer', 'Bearer '],
] as const) {
  test(`malformed: ${label} → 401 invalid_api_key`, async (t) => {
    const { response, body } = await getJson('/v1/me', { Authorization: header });
    t.is(response.status, 401);
    t.is(body.error.code, 'invalid_api_key');
  });
}

// Node kept the first of two Authorization lines and answered with its key: a proxy reading the
// last one would have checked another key than the one the API acted with.
test('two Authorization headers → 401 invalid_api_key, even when both carry valid keys', async (t) => {
  const first = (await seedKey(api.database, { scopes: [], companyIds: [companyA.id] })).key;
  const second = (await seedKey(api.database, { scopes: [], companyIds: [companyB.id] })).key;
  for (const [one, two] of [[first, second], [first, first], [first, 'not-a-key']]) {
    // Two header lines, as a client or proxy may write them (fetch would join them into one).
    const answer = await rawExchange(api.url, `GET /v1/me HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${one}\r\nAuthorization: Bearer ${two}\r\nConnection: close\r\n\r\n`);
    t.is(answer?.status, 401);
    t.is(answer?.body?.error?.code, 'invalid_api_key');
    t.is(answer?.body?.error?.message, 'Send one Authorization header, not several.');
    t.regex(answer?.headers['www-authenticate'] ?? '', /^Bearer/);
  }
  t.is((await getJson('/v1/me', bearer(first))).response.status, 200, 'one header still works');
});

test('a well-formed key that was never issued → 401 invalid_api_key', async (t) => {
  const { response, body } = await getJson('/v1/me', bearer(generateApiKey('inv').fullKey));
  t.is(response.status, 401);
  t.is(body.error.code, 'invalid_api_key');
});

test('an issued key id with a wrong secret → 401 invalid_api_key', async (t) => {
  const { key } = await seedKey(api.database);
  const forged = key.slice(0, -5) + (key.endsWith('AAAAA') ? 'BBBBB' : 'AAAAA');
  const { response, body } = await getJson('/v1/me', bearer(forged));
  t.is(response.status, 401);
  t.is(body.error.code, 'invalid_api_key');
});

test('an issued key with another prefix → 401 invalid_api_key', async (t) => {
  const { key } = await seedKey(api.database);
  const { response } = await getJson('/v1/me', bearer(key.replace(/^inv_/, 'abc_')));
  t.is(response.status, 401);
});

test('a revoked key stops working at once', async (t) => {
  const { id, key } = await seedKey(api.database);
  t.is((await getJson('/v1/me', bearer(key))).response.status, 200);
  await revokeApiKey(api.database.repositories, id);
  const { response, body } = await getJson('/v1/me', bearer(key));
  t.is(response.status, 401);
  t.is(body.error.code, 'api_key_revoked');
});

test('GET /v1/me describes the key and the companies it may access', async (t) => {
  const { id, key } = await seedKey(api.database, { scopes: ['documents:read', 'webhooks:manage'], role: 'admin', companyIds: [companyB.id] });
  const { response, body } = await getJson('/v1/me', bearer(key));
  t.is(response.status, 200);
  t.is(body.id, id);
  t.is(body.prefix, 'inv');
  t.is(body.role, 'admin');
  t.deepEqual(body.scopes, ['documents:read', 'webhooks:manage']);
  t.false(body.all_companies);
  t.regex(body.created_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  t.deepEqual(body.companies.map((company: { id: number }) => company.id), [companyB.id]);
  t.false(JSON.stringify(body).includes(key.split('_').pop()!), 'the secret is never echoed');
});

test('GET /v1/companies lists only authorized companies, with the spec fields and types', async (t) => {
  const restricted = await seedKey(api.database, { companyIds: [companyA.id] });
  const { response, body } = await getJson('/v1/companies', bearer(restricted.key));
  t.is(response.status, 200);
  t.true(Array.isArray(body));
  t.is(body.length, 1);
  const [company] = body as unknown as Record<string, unknown>[];
  t.deepEqual(Object.keys(company).sort(), ['created_at', 'dv', 'id', 'inbox_email', 'name', 'nit', 'person_type']);
  t.is(company.id, companyA.id);
  t.is(company.nit, '900108281');
  t.is(company.dv, '3');
  t.is(company.person_type, 'LEGAL');
  t.is(typeof company.id, 'number');

  const unrestricted = await seedKey(api.database);
  const all = await getJson('/v1/companies', bearer(unrestricted.key));
  t.deepEqual((all.body as unknown as { id: number }[]).map((c) => c.id), [companyA.id, companyB.id]);

  // Never paged: a limit is refused, not silently ignored (it answered every company).
  const limited = await getJson('/v1/companies?limit=1', bearer(unrestricted.key));
  t.is(limited.response.status, 400);
  t.like(limited.body, { error: { code: 'invalid_parameter', param: 'limit' } });
});

test('a company outside the key list is 404, exactly like one that does not exist', async (t) => {
  const { key } = await seedKey(api.database, { companyIds: [companyA.id] });
  const visible = await getJson(`/v1/companies/${companyA.id}`, bearer(key));
  t.is(visible.response.status, 200);
  t.is(visible.body.id, companyA.id);
  const hidden = await getJson(`/v1/companies/${companyB.id}`, bearer(key));
  const missing = await getJson('/v1/companies/999999', bearer(key));
  t.is(hidden.response.status, 404);
  t.is(missing.response.status, 404);
  t.is(hidden.body.error.code, 'not_found');
  t.is(hidden.body.error.message.replace(String(companyB.id), 'N'), missing.body.error.message.replace('999999', 'N'));
});

test('a malformed company id names the parameter', async (t) => {
  const { key } = await seedKey(api.database);
  const { response, body } = await getJson('/v1/companies/abc', bearer(key));
  t.is(response.status, 400);
  t.is(body.error.code, 'invalid_parameter');
  t.is(body.error.param, 'company_id');
});

test('paths are case-sensitive: /V1/… is no route (404) and never reaches a handler without its authentication', async (t) => {
  const { key } = await seedKey(api.database, { companyIds: [companyA.id] });
  for (const [method, path] of [
    ['GET', '/V1/me'],
    ['GET', '/v1/ME'],
    ['GET', `/V1/companies/${companyA.id}/invoices`],
    ['POST', `/V1/companies/${companyA.id}/files`],
    ['GET', '/HEALTHZ'],
  ] as const) {
    for (const headers of [{}, bearer(key)]) {
      const response = await fetch(`${api.url}${path}`, { method, headers });
      const body = (await response.json()) as { error: { code: string } };
      t.is(response.status, 404, `${method} ${path}`);
      t.is(body.error.code, 'not_found', `${method} ${path}`);
    }
  }
  // The lower-case spelling is the route.
  t.is((await fetch(`${api.url}/v1/me`, { headers: bearer(key) })).status, 200);
});
