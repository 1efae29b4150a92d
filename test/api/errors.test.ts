import test from 'ava';
import { bearer, seedKey, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
let key: string;

test.before(async () => {
  api = await startTestApi();
  key = (await seedKey(api.database)).key;
});
test.after.always(async () => api?.close());

test('unknown routes are 404 JSON with or without a key', async (t) => {
  for (const headers of [{}, bearer(key)]) {
    const response = await fetch(`${api.url}/v1/no-such-thing`, { headers });
    t.is(response.status, 404);
    t.regex(response.headers.get('content-type') ?? '', /application\/json/);
    t.truthy(response.headers.get('x-request-id'));
    const body = (await response.json()) as { error: { code: string; message: string } };
    t.is(body.error.code, 'not_found');
    t.regex(body.error.message, /no-such-thing/);
  }
});

test('a method a route does not have is 405 method_not_allowed with Allow', async (t) => {
  const response = await fetch(`${api.url}/v1/companies`, { method: 'DELETE', headers: bearer(key) });
  t.is(response.status, 405);
  t.regex(response.headers.get('allow') ?? '', /GET/);
  const body = (await response.json()) as { error: { code: string } };
  t.is(body.error.code, 'method_not_allowed');
});

test('a caller-supplied X-Request-Id is echoed; a hostile one is replaced', async (t) => {
  const kept = await fetch(`${api.url}/v1/me`, { headers: { ...bearer(key), 'X-Request-Id': 'client-trace-12345' } });
  t.is(kept.headers.get('x-request-id'), 'client-trace-12345');
  const replaced = await fetch(`${api.url}/v1/me`, { headers: { ...bearer(key), 'X-Request-Id': 'bad id\twith spaces' } });
  t.regex(replaced.headers.get('x-request-id') ?? '', /^req_/);
});

test('every error body has exactly the documented shape', async (t) => {
  const response = await fetch(`${api.url}/v1/me`);
  const body = (await response.json()) as Record<string, unknown>;
  t.deepEqual(Object.keys(body), ['error']);
  const error = body.error as Record<string, unknown>;
  t.deepEqual(Object.keys(error).sort(), ['code', 'message']);
  t.regex(String(error.code), /^[a-z]+(_[a-z]+)*$/);
  t.regex(String(error.message), /[.!?]$/);
});
