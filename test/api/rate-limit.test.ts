import test from 'ava';
import { bearer, seedKey, startTestApi, type TestApi } from '../support/api';

let api: TestApi;
test.before(async () => {
  api = await startTestApi({ RATE_LIMIT_PER_SECOND: '0.5', RATE_LIMIT_BURST: '3' });
});
test.after.always(async () => api?.close());

test('a key over its budget gets 429 rate_limited with Retry-After; other keys are unaffected', async (t) => {
  const busy = await seedKey(api.database);
  const calm = await seedKey(api.database);
  const statuses: number[] = [];
  for (let i = 0; i < 3; i += 1) {
    const response = await fetch(`${api.url}/v1/me`, { headers: bearer(busy.key) });
    statuses.push(response.status);
    t.is(response.headers.get('ratelimit-remaining'), String(2 - i));
  }
  t.deepEqual(statuses, [200, 200, 200]);

  const limited = await fetch(`${api.url}/v1/me`, { headers: bearer(busy.key) });
  t.is(limited.status, 429);
  const retryAfter = Number(limited.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 2, `Retry-After ${retryAfter}`);
  const body = (await limited.json()) as { error: { code: string; message: string } };
  t.is(body.error.code, 'rate_limited');
  t.truthy(limited.headers.get('x-request-id'));

  t.is((await fetch(`${api.url}/v1/me`, { headers: bearer(calm.key) })).status, 200);
});

test('unauthenticated requests are refused before they touch any budget', async (t) => {
  const response = await fetch(`${api.url}/v1/me`);
  t.is(response.status, 401);
});
