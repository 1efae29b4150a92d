import { randomBytes } from 'node:crypto';
import test from 'ava';
import { revokeApiKey } from '../../admin/api-keys';
import { bearer, seedKey, startTestApi, type TestApi } from '../support/api';

// Issue 9: failed authentication is limited per client address before any database work.
// Defaults: 20 failures in a burst, then 60 a minute (AUTH_FAILURES_PER_MINUTE, AUTH_FAILURE_BURST).

let api: TestApi;
let untrusting: TestApi;
let apiKeyQueries = 0;

test.before(async () => {
  [api, untrusting] = await Promise.all([startTestApi({ TRUST_PROXY: 'true' }), startTestApi()]);
  api.database.db.on('query', (query: { sql: string }) => {
    if (/\bapi_keys\b/.test(query.sql)) apiKeyQueries += 1;
  });
});
test.after.always(async () => Promise.all([api?.close(), untrusting?.close()]));

const base62 = (length: number) => randomBytes(length * 2).toString('base64').replace(/[^0-9A-Za-z]/g, '').slice(0, length);
const bogusKey = () => `inv_live_${base62(16)}_${base62(43)}`;

async function me(target: TestApi, headers: Record<string, string>) {
  const response = await fetch(`${target.url}/v1/me`, { headers });
  const body = (await response.json()) as { error?: { code: string } };
  return { status: response.status, code: body.error?.code, retryAfter: response.headers.get('retry-after') };
}

async function flood(target: TestApi, count: number, headers: () => Record<string, string>) {
  const answers: Awaited<ReturnType<typeof me>>[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: 30 }, async () => {
    while (next++ < count) answers.push(await me(target, headers()));
  }));
  return answers;
}

test.serial('300 bogus keys from one address: almost all 429 before Postgres is asked', async (t) => {
  const before = apiKeyQueries;
  const started = Date.now();
  const answers = await flood(api, 300, () => ({ ...bearer(bogusKey()), 'X-Forwarded-For': '203.0.113.1' }));
  const seconds = (Date.now() - started) / 1000;
  const limited = answers.filter((answer) => answer.status === 429);
  const refused = answers.filter((answer) => answer.status === 401);
  t.is(limited.length + refused.length, 300);
  // The burst (20) plus what refills while the flood runs (1 a second).
  t.true(refused.length <= 20 + Math.ceil(seconds) + 1, `${refused.length} reached authentication in ${seconds} s`);
  t.true(apiKeyQueries - before <= refused.length, `${apiKeyQueries - before} api_keys queries`);
  t.true(limited.every((answer) => answer.code === 'rate_limited' && Number(answer.retryAfter) >= 1));
  t.log(`${refused.length} × 401, ${limited.length} × 429, ${apiKeyQueries - before} api_keys queries in ${seconds.toFixed(2)} s`);
});

test.serial('every kind of failure counts: missing, malformed, unknown, wrong secret, revoked', async (t) => {
  const good = await seedKey(api.database);
  const revoked = await seedKey(api.database);
  await revokeApiKey(api.database.repositories, revoked.id);
  const wrongSecret = good.key.replace(/_[0-9A-Za-z]{43}$/, `_${base62(43)}`);
  const kinds: Record<string, string>[] = [{}, { Authorization: 'Bearer nope' }, { Authorization: 'Basic abc' }, bearer(bogusKey()), bearer(wrongSecret), bearer(revoked.key)];
  const codes: string[] = [];
  for (let i = 0; i < 24; i += 1) codes.push((await me(api, { ...kinds[i % kinds.length], 'X-Forwarded-For': '203.0.113.2' })).code!);
  t.deepEqual(new Set(codes.slice(0, 6)), new Set(['authentication_required', 'invalid_api_key', 'api_key_revoked']));
  t.is(codes.at(-1), 'rate_limited');
  t.true(codes.filter((code) => code !== 'rate_limited').length <= 22);
});

test.serial('a key verified before keeps working from a flooded address; another address is not affected', async (t) => {
  const good = await seedKey(api.database);
  t.is((await me(api, { ...bearer(good.key), 'X-Forwarded-For': '203.0.113.3' })).status, 200);
  await flood(api, 60, () => ({ ...bearer(bogusKey()), 'X-Forwarded-For': '203.0.113.3' }));
  t.is((await me(api, { ...bearer(bogusKey()), 'X-Forwarded-For': '203.0.113.3' })).status, 429);
  const concurrent = await Promise.all(Array.from({ length: 40 }, () => me(api, { ...bearer(good.key), 'X-Forwarded-For': '203.0.113.3' })));
  t.deepEqual(new Set(concurrent.map((answer) => answer.status)), new Set([200]));
  t.is((await me(api, { ...bearer(bogusKey()), 'X-Forwarded-For': '203.0.113.4' })).status, 401);
  // Revocation still takes effect at once for a remembered key.
  await revokeApiKey(api.database.repositories, good.id);
  t.is((await me(api, { ...bearer(good.key), 'X-Forwarded-For': '203.0.113.5' })).code, 'api_key_revoked');
});

test.serial("a guess at a verified key's secret (its id is no secret) does not take that key's head start away", async (t) => {
  const victim = await seedKey(api.database);
  const from = { 'X-Forwarded-For': '203.0.113.6' };
  t.is((await me(api, { ...bearer(victim.key), ...from })).status, 200);
  const guess = victim.key.replace(/_[0-9A-Za-z]{43}$/, `_${base62(43)}`);
  t.not(guess, victim.key);
  t.is((await me(api, { ...bearer(guess), ...from })).code, 'invalid_api_key');
  await flood(api, 40, () => ({ ...bearer(bogusKey()), ...from }));
  t.is((await me(api, { ...bearer(bogusKey()), ...from })).status, 429, 'the address is out of failures');
  const answers = await Promise.all(Array.from({ length: 5 }, () => me(api, { ...bearer(victim.key), ...from })));
  t.deepEqual(answers.map((answer) => answer.status), [200, 200, 200, 200, 200]);
});

test.serial('TRUST_PROXY: the address is the one the proxy appended, not one the client wrote', async (t) => {
  await flood(api, 40, () => ({ ...bearer(bogusKey()), 'X-Forwarded-For': `198.51.100.${Math.floor(Math.random() * 250)}, 203.0.113.6` }));
  t.is((await me(api, { ...bearer(bogusKey()), 'X-Forwarded-For': '198.51.100.77, 203.0.113.6' })).status, 429);
});

test.serial('without TRUST_PROXY, X-Forwarded-For is ignored: the socket address is limited', async (t) => {
  const answers = await flood(untrusting, 60, () => ({ ...bearer(bogusKey()), 'X-Forwarded-For': `198.51.100.${Math.floor(Math.random() * 250)}` }));
  t.true(answers.filter((answer) => answer.status === 429).length >= 30);
});
