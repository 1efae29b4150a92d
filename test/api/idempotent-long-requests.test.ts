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

/**
 * The idempotent-requests repository of a process that froze (SIGSTOP, a VM paused, a GC pause of
 * minutes): renewals stop while `frozen` is on, as they would, and everything else goes through.
 */
function freezable() {
  const requests = database.repositories.idempotentRequests;
  const state = { frozen: false };
  const repository = {
    ...requests,
    async renew(...args: Parameters<typeof requests.renew>) {
      return state.frozen ? false : requests.renew(...args);
    },
  };
  return { repository, state };
}

/** Request 1 froze past the limit while running; a retry took its claim over and is running. */
async function takenOverWhileFrozen(t: import('ava').ExecutionContext, key: string, firstOutcome: 'answers' | 'fails') {
  const { id: keyId } = await seedKey(database);
  let runs = 0;
  const gates: (() => void)[] = [];
  const frozenServer = freezable();
  const handler = async () => {
    runs += 1;
    const run = runs;
    await new Promise<void>((resolve) => gates.push(resolve));
    if (run === 1 && firstOutcome === 'fails') throw new Error('the frozen request failed once resumed');
    return { run };
  };
  // Two API processes: the one that froze, and the one the retry reached.
  const frozen = await serve(keyId, handler, frozenServer.repository);
  const other = await serve(keyId, handler);
  t.teardown(frozen.close);
  t.teardown(other.close);

  const first = post(frozen.url, key);
  for (let i = 0; i < 50 && runs === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  frozenServer.state.frozen = true;
  await new Promise((resolve) => setTimeout(resolve, 200)); // a renewal in flight lands
  await database.db('idempotent_requests').where({ api_key_id: keyId, idempotency_key: key }).update({ claimed_at: database.db.raw("now() - interval '2 minutes'") });
  const retry = post(other.url, key);
  for (let i = 0; i < 50 && runs < 2; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
  t.is(runs, 2, 'the retry took the abandoned-looking claim over and runs');

  const resumeFirst = async () => {
    // The frozen process resumes: its renewals go on, and its request ends.
    frozenServer.state.frozen = false;
    await new Promise((resolve) => setTimeout(resolve, 300));
    gates[0]!();
    return first;
  };
  return { resumeFirst, retry, releaseRetry: () => gates[1]!(), runs: () => runs, other };
}

test('a process frozen past the limit, then resumed, cannot replace the answer of the request that took its claim over', async (t) => {
  const { resumeFirst, retry, releaseRetry, runs, other } = await takenOverWhileFrozen(t, 'frozen-answers', 'answers');
  releaseRetry();
  t.deepEqual((await retry).body, { run: 2 });
  t.deepEqual((await resumeFirst()).body, { run: 1 }, 'the resumed request still answers its own client');
  const replay = await post(other.url, 'frozen-answers');
  t.is(replay.replayed, 'true');
  t.deepEqual(replay.body, { run: 2 }, 'the kept answer is the one of the request that held the claim');
  t.is(runs(), 2);
});

test('a process frozen past the limit, then failing, does not release the claim another request holds now', async (t) => {
  const { resumeFirst, retry, releaseRetry, runs, other } = await takenOverWhileFrozen(t, 'frozen-fails', 'fails');
  t.is((await resumeFirst()).status, 500);
  const meanwhile = await post(other.url, 'frozen-fails');
  t.is(meanwhile.status, 409, 'the running retry still holds the key');
  t.is(meanwhile.body.error.code, 'idempotency_key_in_use');
  releaseRetry();
  t.deepEqual((await retry).body, { run: 2 });
  t.deepEqual((await post(other.url, 'frozen-fails')).body, { run: 2 });
  t.is(runs(), 2, 'nothing ran a third time');
});
