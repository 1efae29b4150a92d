import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import pino from 'pino';
import { generateApiKey } from '../../domain/api-key';
import type { ApiKeyRecord, ApiKeysRepository } from '../../db/repositories/api-keys';
import { authenticate } from '../../api/middleware/authenticate';
import { errorHandler } from '../../api/middleware/error-handler';

// Postgres lost while clients keep calling: the key lookup fails, and that says nothing about the
// key. Before the fix each such failure counted as a failed authentication of the client's
// address (and made the API forget a verified key), so a short outage turned into
// `429 rate_limited: Too many failed authentication attempts` for every client behind that
// address, instead of the documented `503 service_unavailable` with Retry-After, and the 429s
// outlasted the outage.

const generated = generateApiKey('inv');
const record: ApiKeyRecord = {
  id: generated.keyId,
  name: 'k',
  prefix: 'inv',
  secretHash: generated.secretHash,
  scopes: [],
  role: 'admin',
  access: { all: true } as unknown as ApiKeyRecord['access'],
  createdAt: new Date(),
  revokedAt: null,
};

function stoppedPostgres(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
}

async function serve(repository: Pick<ApiKeysRepository, 'findById' | 'findWithCompany'>) {
  const app = new Koa();
  app.use(errorHandler(pino({ level: 'silent' })));
  app.use(authenticate(repository as ApiKeysRepository, { perMinute: 60, burst: 5 }));
  app.use((ctx) => {
    ctx.body = { ok: true };
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

const call = async (url: string, key: string) => {
  const response = await fetch(`${url}/v1/me`, { headers: { authorization: `Bearer ${key}` } });
  const body = (await response.json()) as { error?: { code: string } };
  return { status: response.status, code: body.error?.code, retryAfter: response.headers.get('retry-after') };
};

test('a database outage answers 503 to every request of a key, never 429, and the key works at once when it is back', async (t) => {
  let down = false;
  const lookUp = async () => {
    if (down) throw stoppedPostgres();
    return record;
  };
  const server = await serve({ findById: lookUp, findWithCompany: async () => ({ key: await lookUp(), company: undefined }) });
  t.teardown(server.close);

  t.is((await call(server.url, generated.fullKey)).status, 200);
  down = true;
  // Far more than the address's burst of failures (5): each is the outage's 503, not a 429.
  const during = await Promise.all(Array.from({ length: 30 }, () => call(server.url, generated.fullKey)));
  t.deepEqual(new Set(during.map((answer) => `${answer.status} ${answer.code} ${answer.retryAfter}`)), new Set(['503 service_unavailable 5']));
  // A key never verified by this process, sent during the outage, gets the same 503.
  const other = generateApiKey('inv');
  const unknown = await Promise.all(Array.from({ length: 10 }, () => call(server.url, other.fullKey)));
  t.deepEqual(new Set(unknown.map((answer) => answer.status)), new Set([503]));

  down = false;
  const after = await Promise.all(Array.from({ length: 10 }, () => call(server.url, generated.fullKey)));
  t.deepEqual(new Set(after.map((answer) => answer.status)), new Set([200]));
});

test('refused keys still count: the sixth bad key from the address is 429', async (t) => {
  const server = await serve({ findById: async () => undefined, findWithCompany: async () => undefined });
  t.teardown(server.close);
  const answers = [];
  for (let i = 0; i < 6; i += 1) answers.push(await call(server.url, generateApiKey('inv').fullKey));
  t.deepEqual(answers.map((answer) => answer.status), [401, 401, 401, 401, 401, 429]);
});
