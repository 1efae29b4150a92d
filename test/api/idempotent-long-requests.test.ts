import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac, randomBytes } from 'node:crypto';
import test from 'ava';
import Koa from 'koa';
import pino from 'pino';
import { idempotentRequests } from '../../api/middleware/idempotent-requests';
import { errorHandler } from '../../api/middleware/error-handler';
import { SecretBox } from '../../domain/secret-box';
import { seedKey } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';

// A POST held for over a minute (seen: `POST /v1/webhooks/{id}/test` while the Temporal dev server
// was stopped for 80 s) must not run a second time when its client retries with the same
// Idempotency-Key: before the fix the retry took the claim over after a minute, as if the first
// request's process had died, and both acted (two webhook.test events, two different answers).
// The running request now renews its claim; only a claim nobody renews is taken over.

let database: TestDatabase;
const FINGERPRINT_KEY = randomBytes(32);
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => database?.drop());

async function serve(keyId: string, handler: () => Promise<unknown>, requests = database.repositories.idempotentRequests) {
  const app = new Koa();
  app.use(errorHandler(pino({ level: 'silent' })));
  app.use(async (ctx, next) => {
    ctx.state.apiKey = { id: keyId };
    await next();
  });
  app.use(idempotentRequests({ requests, secretBox: new SecretBox(randomBytes(32)), fingerprintKey: FINGERPRINT_KEY, logger: pino({ level: 'silent' }) }, { renewEveryMs: 100 }));
  app.use(async (ctx) => {
    ctx.status = 202;
    ctx.body = await handler();
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

const post = async (url: string, key: string) => {
  const response = await fetch(`${url}/v1/act`, { method: 'POST', headers: { 'Idempotency-Key': key } });
  return { status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as Record<string, any> };
};

test('a request still running after a minute keeps its key: a retry is 409 in use, then gets the one answer', async (t) => {
  const { id: keyId } = await seedKey(database);
  let runs = 0;
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const server = await serve(keyId, async () => {
    runs += 1;
    const run = runs;
    if (run === 1) await gate;
    return { run };
  });
  t.teardown(server.close);

  const first = post(server.url, 'long-1');
  for (let i = 0; i < 50 && runs === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  // The first request has run for "two minutes" (its claim as old as that): a retry comes.
  await database.db('idempotent_requests').where({ api_key_id: keyId, idempotency_key: 'long-1' }).update({ claimed_at: database.db.raw("now() - interval '2 minutes'") });
  await new Promise((resolve) => setTimeout(resolve, 400));
  const retry = await post(server.url, 'long-1');
  t.is(retry.status, 409);
  t.is(retry.body.error.code, 'idempotency_key_in_use');
  t.is(runs, 1);

  release();
  t.deepEqual((await first).body, { run: 1 });
  const after = await post(server.url, 'long-1');
  t.is(after.replayed, 'true');
  t.deepEqual(after.body, { run: 1 });
  t.is(runs, 1);
});

test('a claim nobody renews (its process died) is still taken over after a minute', async (t) => {
  const { id: keyId } = await seedKey(database);
  let runs = 0;
  const server = await serve(keyId, async () => ({ run: (runs += 1) }));
  t.teardown(server.close);
  await database.db('idempotent_requests').insert({
    api_key_id: keyId,
    idempotency_key: 'dead-1',
    fingerprint: createHmac('sha256', FINGERPRINT_KEY).update('POST /v1/act\n{}').digest('hex'),
    request_line: 'POST /v1/act',
    claimed_at: database.db.raw("now() - interval '2 minutes'"),
  });
  const answer = await post(server.url, 'dead-1');
  t.is(answer.status, 202);
  t.deepEqual(answer.body, { run: 1 });
});

test('an answer that could not be kept at once (Postgres lost after the request acted) is kept later; meanwhile a retry is told the key is in use', async (t) => {
  const { id: keyId } = await seedKey(database);
  let runs = 0;
  let failures = 0;
  const flaky = {
    ...database.repositories.idempotentRequests,
    async complete(...args: Parameters<typeof database.repositories.idempotentRequests.complete>) {
      if (failures++ === 0) throw new Error('Connection terminated unexpectedly');
      return database.repositories.idempotentRequests.complete(...args);
    },
  };
  const server = await serve(keyId, async () => ({ run: (runs += 1) }), flaky);
  t.teardown(server.close);

  t.deepEqual((await post(server.url, 'unkept-1')).body, { run: 1 }, 'the answer went out');
  // The claim is still renewed while the answer waits to be kept: as old as "two minutes", it
  // is renewed again before a retry could take it over.
  await database.db('idempotent_requests').where({ api_key_id: keyId, idempotency_key: 'unkept-1' }).update({ claimed_at: database.db.raw("now() - interval '2 minutes'") });
  await new Promise((resolve) => setTimeout(resolve, 300));
  const meanwhile = await post(server.url, 'unkept-1');
  t.true(meanwhile.status === 409 || meanwhile.replayed === 'true', JSON.stringify(meanwhile));
  if (meanwhile.status === 409) t.is(meanwhile.body.error.code, 'idempotency_key_in_use');
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const later = await post(server.url, 'unkept-1');
  t.is(later.replayed, 'true');
  t.deepEqual(later.body, { run: 1 });
  t.is(runs, 1, 'the request acted once');
});
