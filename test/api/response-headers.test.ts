import { createHmac } from 'node:crypto';
import test from 'ava';
import { canonicalJson } from '../../api/middleware/idempotent-requests';
import { SCOPES } from '../../domain/scopes';
import { seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { fixture } from '../support/ingestion';

// What a strict generated client and Schemathesis' response_headers_conformance see: every header
// a real answer carries is documented on that operation's answer for that status, every header
// documented as required is there, and each value fits its schema. Before 2026-11-25 X-Request-Id
// and RateLimit-* were documented nowhere, Idempotent-Replayed only on uploads, Retry-After not on
// 409 idempotency_key_in_use, and the download's Cache-Control and X-Content-Type-Options not at all.

type HeaderObject = { required?: boolean; schema?: { type?: string; const?: string; pattern?: string; format?: string; minimum?: number } };
type Documented = {
  paths: Record<string, Record<string, { responses: Record<string, { headers?: Record<string, HeaderObject | { $ref: string }> }> }>>;
  components: { headers: Record<string, HeaderObject> };
};

/** Headers of HTTP itself, which OpenAPI describes elsewhere (Content-Type) or not at all. */
const TRANSPORT = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding']);

let api: TestApi;
let document: Documented;
const BURST = 30;
test.before(async () => {
  api = await startTestApi({ RATE_LIMIT_PER_SECOND: '1', RATE_LIMIT_BURST: String(BURST), REQUEST_BODY_LIMIT_BYTES: '4096' });
  document = (await (await fetch(`${api.url}/v1/openapi.json`)).json()) as Documented;
});
test.after.always(async () => api?.close());

function fits(value: string, schema: HeaderObject['schema'] = {}): boolean {
  if (schema.type === 'integer') return /^-?[0-9]+$/.test(value) && (schema.minimum === undefined || Number(value) >= schema.minimum);
  if (schema.const !== undefined && value !== schema.const) return false;
  if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return false;
  if (schema.format === 'uri' && !URL.canParse(value)) return false;
  return true;
}

/** What differs between a real answer's headers and the documented ones ([] when they agree). */
function headerFindings(operation: string, response: Response): string[] {
  const [method, path] = operation.split(' ');
  const answer = document.paths[path]?.[method.toLowerCase()]?.responses[String(response.status)];
  if (!answer) return [`${operation}: ${response.status} is not documented`];
  const resolve = (header: HeaderObject | { $ref: string }) => ('$ref' in header ? document.components.headers[header.$ref.split('/').pop()!] : header);
  const documented = new Map(Object.entries(answer.headers ?? {}).map(([name, header]) => [name.toLowerCase(), resolve(header)]));
  const findings: string[] = [];
  response.headers.forEach((_value, name) => {
    if (!TRANSPORT.has(name) && !documented.has(name)) findings.push(`${operation} ${response.status}: ${name} is sent but not documented`);
  });
  for (const [name, header] of documented) {
    const value = response.headers.get(name);
    if (value === null) {
      if (header.required) findings.push(`${operation} ${response.status}: required ${name} is missing`);
    } else if (!fits(value, header.schema)) {
      findings.push(`${operation} ${response.status}: ${name}: ${value} does not fit ${JSON.stringify(header.schema)}`);
    }
  }
  return findings;
}

test('every header of real answers is documented on its answer, and every documented header is as sent', async (t) => {
  const company = await seedCompany(api.database);
  const { key, id: keyId } = await seedKey(api.database, { scopes: [...SCOPES], role: 'admin' });
  const auth = { Authorization: `Bearer ${key}` };
  const json = { ...auth, 'Content-Type': 'application/json' };
  const answers: [string, Response, number][] = [];
  const check = async (operation: string, expected: number, url: string, init: RequestInit = {}) => {
    const response = await fetch(`${api.url}${url}`, { redirect: 'manual', ...init });
    await response.arrayBuffer();
    answers.push([operation, response, expected]);
    return response;
  };

  const health = await check('GET /healthz', 200, '/healthz');
  // 503 is its documented answer when a dependency is slow (a loaded machine): headers alike.
  if (health.status === 503) answers[0][2] = 503;
  await check('GET /v1/openapi.json', 200, '/v1/openapi.json');
  await check('GET /v1/companies', 200, '/v1/companies', { headers: auth });
  await check('GET /v1/companies', 401, '/v1/companies');
  await check('GET /v1/companies/{company_id}', 400, '/v1/companies/abc', { headers: auth });
  await check('GET /v1/companies/{company_id}', 404, '/v1/companies/999999', { headers: auth });

  // A creation, its replay and the same key with another body.
  const webhooks = `/v1/companies/${company.id}/webhooks`;
  const create = (url: string) => ({ method: 'POST', headers: { ...json, 'Idempotency-Key': 'create-1' }, body: JSON.stringify({ url, events: [] }) });
  const created = await check('POST /v1/companies/{company_id}/webhooks', 201, webhooks, create('http://127.0.0.1:41904/hook'));
  const replayed = await check('POST /v1/companies/{company_id}/webhooks', 201, webhooks, create('http://127.0.0.1:41904/hook'));
  t.is(created.headers.get('idempotent-replayed'), null);
  t.is(replayed.headers.get('idempotent-replayed'), 'true');
  // A 201 names what it created (it named nothing before 2026-11-25: the collection, by RFC 9110).
  const location = created.headers.get('location');
  t.is(replayed.headers.get('location'), location);
  t.is((await fetch(`${api.url}${location}`, { headers: auth })).status, 200, `GET ${location}`);
  const claim = await check('POST /v1/companies/{company_id}/payment-claim-accounts', 201, `/v1/companies/${company.id}/payment-claim-accounts`, {
    method: 'POST', headers: json, body: JSON.stringify({ number: 'CC-1', issue_date: '2026-11-20', total: '5' }),
  });
  t.is((await fetch(`${api.url}${claim.headers.get('location')}`, { headers: auth })).status, 200, `GET ${claim.headers.get('location')}`);
  await check('POST /v1/companies/{company_id}/webhooks', 409, webhooks, create('http://127.0.0.1:41904/other'));
  await check('POST /v1/companies/{company_id}/webhooks', 415, webhooks, { method: 'POST', headers: { ...auth, 'Content-Type': 'text/plain' }, body: '{}' });
  await check('POST /v1/companies/{company_id}/webhooks', 413, webhooks, { method: 'POST', headers: json, body: JSON.stringify({ url: 'x'.repeat(8192) }) });
  const { key: memberKey } = await seedKey(api.database, { scopes: ['documents:read'] });
  await check('GET /v1/companies/{company_id}/webhooks', 403, webhooks, { headers: { Authorization: `Bearer ${memberKey}` } });

  // The same key while its first request still runs: 409 idempotency_key_in_use with Retry-After.
  const { data: endpoints } = (await (await fetch(`${api.url}${webhooks}`, { headers: auth })).json()) as { data: { id: number }[] };
  const testPath = `/v1/webhooks/${endpoints[0].id}/test`;
  const fingerprint = createHmac('sha256', api.dependencies.requestFingerprintKey).update(`POST ${testPath}\n${canonicalJson({})}`).digest('hex');
  await api.dependencies.repositories.idempotentRequests.claim(keyId, 'still-running', fingerprint, `POST ${testPath}`);
  const inUse = await check('POST /v1/webhooks/{webhook_id}/test', 409, testPath, { method: 'POST', headers: { ...json, 'Idempotency-Key': 'still-running' }, body: '{}' });
  t.is(inUse.headers.get('retry-after'), '1');
  const endpoint = `/v1/webhooks/${endpoints[0].id}`;
  await check('PATCH /v1/webhooks/{webhook_id}', 200, endpoint, { method: 'PATCH', headers: json, body: JSON.stringify({ enabled: true }) });
  await check('DELETE /v1/webhooks/{webhook_id}', 204, endpoint, { method: 'DELETE', headers: auth });

  // An upload and its replay, the redirect to its bytes, the signed download and a forged one.
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(fixture('invoice-signed-setp.xml'))], { type: 'application/xml' }), 'invoice.xml');
  const uploadInit = { method: 'POST', headers: { ...auth, 'Idempotency-Key': 'upload-1' }, body: form };
  const uploaded = await check('POST /v1/companies/{company_id}/files', 202, `/v1/companies/${company.id}/files`, uploadInit);
  const uploadReplayed = await check('POST /v1/companies/{company_id}/files', 202, `/v1/companies/${company.id}/files`, uploadInit);
  const fileId = ((await (await fetch(`${api.url}/v1/companies/${company.id}/files`, { headers: auth })).json()) as { data: { id: number }[] }).data[0].id;
  // A 202 points at where its outcome shows: the uploaded file, on the replay too (it named nothing before 2026-11-25).
  t.is(uploaded.headers.get('location'), `/v1/companies/${company.id}/files/${fileId}`);
  t.is(uploadReplayed.headers.get('idempotent-replayed'), 'true');
  t.is(uploadReplayed.headers.get('location'), uploaded.headers.get('location'));
  t.is((await fetch(`${api.url}${uploaded.headers.get('location')}`, { headers: auth })).status, 200);
  const redirect = await check('GET /v1/companies/{company_id}/files/{file_id}/content', 302, `/v1/companies/${company.id}/files/${fileId}/content`, { headers: auth });
  const download = new URL(redirect.headers.get('location')!);
  await check('GET /blobs/{key}', 200, `${download.pathname}${download.search}`);
  await check('GET /blobs/{key}', 403, `${download.pathname}${download.search.replace(/signature=[^&]+/, 'signature=forged')}`);
  t.is(uploaded.status, 202);

  // Over the burst of a second key: 429 with Retry-After and the bucket's headers.
  const { key: busyKey } = await seedKey(api.database);
  const burst = await Promise.all(Array.from({ length: BURST + 10 }, () => fetch(`${api.url}/v1/me`, { headers: { Authorization: `Bearer ${busyKey}` } })));
  await Promise.all(burst.map((response) => response.arrayBuffer()));
  const limited = burst.find((response) => response.status === 429);
  t.truthy(limited, 'no 429 over the burst');
  if (limited) answers.push(['GET /v1/me', limited, 429]);

  t.deepEqual(answers.map(([operation, response]) => `${operation} ${response.status}`), answers.map(([operation, , expected]) => `${operation} ${expected}`));
  t.deepEqual(answers.flatMap(([operation, response]) => headerFindings(operation, response)), []);
});
