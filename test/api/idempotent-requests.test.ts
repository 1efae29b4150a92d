import { createHash } from 'node:crypto';
import test from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { generateWebhookSecret } from '../../domain/webhooks/signature';

// Stripe's idempotent requests on every POST with a JSON body or none (api/middleware/idempotent-requests.ts).
let api: TestApi;
let writer: { id: string; key: string };
let company: { id: number };

test.before(async () => {
  api = await startTestApi();
  company = await seedCompany(api.database);
  writer = await seedKey(api.database, { scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin' });
});
test.after.always(async () => api?.close());

async function post(path: string, body: unknown, idempotencyKey?: string, key = writer.key) {
  const response = await fetch(`${api.url}/v1${path}`, {
    method: 'POST',
    headers: { ...bearer(key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...(idempotencyKey ? { 'Idempotency-Key': idempotencyKey } : {}) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, any> };
}

const claims = () => `/companies/${company.id}/payment-claim-accounts`;
const claimsNumbered = async (number: string) => Number((await api.database.db('documents').where({ company_id: company.id, number }).count<{ count: number }[]>('* as count'))[0].count);

test('the same POST with the same key is answered again without acting twice; the order of the JSON keys does not matter', async (t) => {
  const first = await post(claims(), { number: 'IDEM-1', issue_date: '2026-11-20', total: '100' }, 'claim-idem-1');
  t.is(first.status, 201);
  t.is(first.headers.get('idempotent-replayed'), null);
  const again = await post(claims(), '{"total":"100","issue_date":"2026-11-20","number":"IDEM-1"}', 'claim-idem-1');
  t.is(again.status, 201);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(again.body, first.body);
  t.is(await claimsNumbered('IDEM-1'), 1);
  // Without a key, or with another, the same body is a new request.
  t.is((await post(claims(), { number: 'IDEM-1', issue_date: '2026-11-20', total: '100' }, 'claim-idem-1b')).status, 201);
  t.is(await claimsNumbered('IDEM-1'), 2);
});

test('the same key with another body or path is 409 idempotency_key_reused, naming what differs', async (t) => {
  t.is((await post(claims(), { number: 'IDEM-2', issue_date: '2026-11-20', total: '100' }, 'claim-idem-2')).status, 201);
  const otherBody = await post(claims(), { number: 'IDEM-2', issue_date: '2026-11-20', total: '200' }, 'claim-idem-2');
  t.is(otherBody.status, 409);
  t.like(otherBody.body.error, { code: 'idempotency_key_reused', param: 'Idempotency-Key' });
  t.regex(otherBody.body.error.message, /with other parameters/);
  const otherPath = await post(`/companies/${company.id}/webhooks`, { url: 'https://example.com/idem', events: ['document.imported'] }, 'claim-idem-2');
  t.is(otherPath.status, 409);
  t.regex(otherPath.body.error.message, new RegExp(`for POST /v1/companies/${company.id}/payment-claim-accounts`));
  t.is(await claimsNumbered('IDEM-2'), 1);
});

test('a request that fails keeps nothing: the key runs the corrected request', async (t) => {
  const refused = await post(claims(), { number: 'IDEM-3', issue_date: 'not a date', total: '100' }, 'claim-idem-3');
  t.is(refused.status, 400);
  const corrected = await post(claims(), { number: 'IDEM-3', issue_date: '2026-11-20', total: '100' }, 'claim-idem-3');
  t.is(corrected.status, 201);
  t.is(corrected.headers.get('idempotent-replayed'), null);
});

test('simultaneous requests with one key: one acts, the others get 409 idempotency_key_in_use or its answer', async (t) => {
  const body = { number: 'IDEM-4', issue_date: '2026-11-20', total: '100' };
  const answers = await Promise.all(Array.from({ length: 8 }, () => post(claims(), body, 'claim-idem-4')));
  const created = answers.filter((answer) => answer.status === 201);
  const busy = answers.filter((answer) => answer.status === 409);
  t.is(created.length + busy.length, 8, answers.map((answer) => answer.status).join(','));
  t.true(created.length >= 1);
  t.is(new Set(created.map((answer) => answer.body.id)).size, 1, 'every 201 is the one document');
  for (const answer of busy) {
    t.is(answer.body.error.code, 'idempotency_key_in_use');
    t.is(answer.headers.get('retry-after'), '1');
  }
  t.is(await claimsNumbered('IDEM-4'), 1);
  const later = await post(claims(), body, 'claim-idem-4');
  t.is(later.body.id, created[0]!.body.id);
});

test('keys belong to the API key: another API key with the same Idempotency-Key makes its own request', async (t) => {
  const other = await seedKey(api.database, { scopes: ['documents:write'] });
  const body = { number: 'IDEM-5', issue_date: '2026-11-20', total: '100' };
  const mine = await post(claims(), body, 'shared-key');
  const theirs = await post(claims(), body, 'shared-key', other.key);
  t.is(mine.status, 201);
  t.is(theirs.status, 201);
  t.not(mine.body.id, theirs.body.id);
});

test('a new endpoint and a rotation are replayed with their secret, which is stored sealed', async (t) => {
  const created = await post(`/companies/${company.id}/webhooks`, { url: 'https://example.com/idem-secret', events: ['document.imported'] }, 'endpoint-idem-1');
  t.is(created.status, 201);
  const again = await post(`/companies/${company.id}/webhooks`, { url: 'https://example.com/idem-secret', events: ['document.imported'] }, 'endpoint-idem-1');
  t.deepEqual(again.body, created.body);
  t.is((await api.database.db('webhook_endpoints').where({ url: 'https://example.com/idem-secret' })).length, 1);

  const rotated = await post(`/webhooks/${created.body.id}/rotate-secret`, undefined, 'rotate-idem-1');
  t.is(rotated.status, 200);
  const rotatedAgain = await post(`/webhooks/${created.body.id}/rotate-secret`, undefined, 'rotate-idem-1');
  t.is(rotatedAgain.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(rotatedAgain.body, rotated.body, 'one rotation: the retry gets its secret');
  const endpoint = await api.database.db('webhook_endpoints').where({ id: created.body.id }).first();
  t.is(endpoint.secrets.length, 2, 'rotated once');

  const stored = await api.database.db('idempotent_requests').where({ api_key_id: writer.id }).whereIn('idempotency_key', ['endpoint-idem-1', 'rotate-idem-1']);
  t.is(stored.length, 2);
  const secrets = [created.body.secret, rotated.body.secret];
  t.true(secrets.every((secret) => typeof secret === 'string' && secret.length > 20));
  for (const row of stored) t.false(secrets.some((secret) => JSON.stringify(row).includes(secret)), 'no secret in the clear');
});

test('a claim left by a crashed process is taken over after a minute; an answer older than 24 hours is not replayed', async (t) => {
  const body = { number: 'IDEM-6', issue_date: '2026-11-20', total: '100' };
  const first = await post(claims(), body, 'claim-idem-6');
  // As if the process had died while running it: no answer, claimed two minutes ago.
  await api.database.db('idempotent_requests').where({ api_key_id: writer.id, idempotency_key: 'claim-idem-6' })
    .update({ response_status: null, response_sealed: null, claimed_at: api.database.db.raw("now() - interval '2 minutes'") });
  const rerun = await post(claims(), body, 'claim-idem-6');
  t.is(rerun.status, 201);
  t.not(rerun.body.id, first.body.id, 'the request ran again');

  await api.database.db('idempotent_requests').where({ api_key_id: writer.id, idempotency_key: 'claim-idem-6' }).update({ created_at: api.database.db.raw("now() - interval '25 hours'") });
  const expired = await post(claims(), { ...body, total: '300' }, 'claim-idem-6');
  t.is(expired.status, 201, 'the key is free again after 24 hours');
});

test('a malformed Idempotency-Key is 400 naming it', async (t) => {
  for (const key of ['has space', 'x'.repeat(256), 'ñ']) {
    const answer = await fetch(`${api.url}/v1${claims()}`, {
      method: 'POST',
      headers: { ...bearer(writer.key), 'Content-Type': 'application/json', 'Idempotency-Key': key },
      body: JSON.stringify({ number: 'IDEM-7', issue_date: '2026-11-20', total: '1' }),
    }).catch(() => null);
    if (!answer) continue; // fetch refuses a non-Latin-1 header value itself
    t.is(answer.status, 400, key);
    t.like(((await answer.json()) as { error: object }).error, { code: 'invalid_parameter', param: 'Idempotency-Key' });
  }
  t.is(await claimsNumbered('IDEM-7'), 0);
});

test('deleting what a kept answer created forgets it: the same request with the key creates anew, never an id that is gone', async (t) => {
  const del = (path: string) => fetch(`${api.url}/v1${path}`, { method: 'DELETE', headers: bearer(writer.key) });
  const get = (path: string) => fetch(`${api.url}/v1${path}`, { headers: bearer(writer.key) });
  const integration = { name: 'erp-idem', provider: 'generic_http', credentials: { secret: generateWebhookSecret() }, settings: { url: 'https://erp.example.com/invoices' } };
  const first = await post(`/companies/${company.id}/integrations`, integration, 'integration-idem-1');
  t.is(first.status, 201, JSON.stringify(first.body));
  // Its Location reads it (it pointed at a path with DELETE only: 405), without the credentials.
  const location = first.headers.get('location')!;
  t.is(location, `/v1/companies/${company.id}/integrations/${first.body.id}`);
  const read = await fetch(`${api.url}${location}`, { headers: bearer(writer.key) });
  t.is(read.status, 200);
  t.deepEqual(await read.json(), first.body);
  t.is((await del(`/companies/${company.id}/integrations/${first.body.id}`)).status, 204);
  t.is((await get(`/companies/${company.id}/integrations/${first.body.id}`)).status, 404);
  const again = await post(`/companies/${company.id}/integrations`, integration, 'integration-idem-1');
  t.is(again.status, 201);
  t.is(again.headers.get('idempotent-replayed'), null);
  t.not(again.body.id, first.body.id);
  const listed = (await (await get(`/companies/${company.id}/integrations`)).json()) as { data: { id: number }[] };
  t.deepEqual(listed.data.filter((entry) => entry.id === first.body.id || entry.id === again.body.id).map((entry) => entry.id), [again.body.id]);

  const endpoint = { url: 'https://example.com/idem-deleted', events: ['document.imported'] };
  const created = await post(`/companies/${company.id}/webhooks`, endpoint, 'endpoint-idem-deleted');
  t.is((await del(`/webhooks/${created.body.id}`)).status, 204);
  const recreated = await post(`/companies/${company.id}/webhooks`, endpoint, 'endpoint-idem-deleted');
  t.is(recreated.status, 201);
  t.not(recreated.body.id, created.body.id);
  t.is((await get(`/webhooks/${recreated.body.id}`)).status, 200);
});

test('a delete whose forgetting fails deletes nothing: the resource and its kept answer stay together, and a retried delete then forgets it', async (t) => {
  const del = (path: string) => fetch(`${api.url}/v1${path}`, { method: 'DELETE', headers: bearer(writer.key) });
  const endpoint = { url: 'https://example.com/idem-atomic', events: ['document.imported'] };
  const created = await post(`/companies/${company.id}/webhooks`, endpoint, 'endpoint-idem-atomic');
  t.is(created.status, 201);
  const db = api.database.db;
  // A real failure of the second write (Postgres refusing the kept answer's delete), not a stub.
  await db.raw(`create function refuse_forgetting() returns trigger language plpgsql as $$
    begin if old.idempotency_key = 'endpoint-idem-atomic' then raise exception 'forgetting refused for the test'; end if; return old; end $$`);
  await db.raw('create trigger refuse_forgetting before delete on idempotent_requests for each row execute function refuse_forgetting()');
  try {
    const refused = await del(`/webhooks/${created.body.id}`);
    t.true(refused.status >= 500, `status ${refused.status}`);
    t.is((await fetch(`${api.url}/v1/webhooks/${created.body.id}`, { headers: bearer(writer.key) })).status, 200, 'the endpoint was deleted although its kept answer was not forgotten');
    const replayed = await post(`/companies/${company.id}/webhooks`, endpoint, 'endpoint-idem-atomic');
    t.is(replayed.headers.get('idempotent-replayed'), 'true');
    t.is(replayed.body.id, created.body.id);
  } finally {
    await db.raw('drop trigger refuse_forgetting on idempotent_requests');
    await db.raw('drop function refuse_forgetting()');
  }
  t.is((await del(`/webhooks/${created.body.id}`)).status, 204);
  const recreated = await post(`/companies/${company.id}/webhooks`, endpoint, 'endpoint-idem-atomic');
  t.is(recreated.status, 201);
  t.not(recreated.body.id, created.body.id);
});

test('a trailing slash makes no other request, a query string is refused; the fingerprint kept is keyed, not a plain hash of the body', async (t) => {
  const body = { number: 'IDEM-9', issue_date: '2026-11-20', total: '100' };
  const first = await post(claims(), body, 'claim-idem-9');
  t.is(first.status, 201);
  const slashed = await post(`${claims()}/`, body, 'claim-idem-9');
  t.is(slashed.headers.get('idempotent-replayed'), 'true');
  // No POST takes a query parameter: refused (400 naming it) before the key is looked at, as on
  // every route (api/middleware/declared-query.ts); it was ignored, and replayed, until 2026-11-25.
  const queried = await post(`${claims()}?via=retry`, body, 'claim-idem-9');
  t.is(queried.status, 400);
  t.is(queried.body.error.param, 'via');
  t.is(await claimsNumbered('IDEM-9'), 1);
  const row = await api.database.db('idempotent_requests').where({ api_key_id: writer.id, idempotency_key: 'claim-idem-9' }).first();
  t.is(row.request_line, `POST /v1${claims()}`);
  const plain = createHash('sha256').update(`POST /v1${claims()}\n{"issue_date":"2026-11-20","number":"IDEM-9","total":"100"}`).digest('hex');
  t.not(row.fingerprint, plain);
  t.regex(row.fingerprint, /^[0-9a-f]{64}$/);

  // Created through a path with a trailing slash, forgotten all the same when deleted.
  const endpoint = { url: 'https://example.com/idem-slash', events: ['document.imported'] };
  const created = await post(`/companies/${company.id}/webhooks/`, endpoint, 'endpoint-idem-slash');
  t.is(created.status, 201);
  t.is((await fetch(`${api.url}/v1/webhooks/${created.body.id}`, { method: 'DELETE', headers: bearer(writer.key) })).status, 204);
  const recreated = await post(`/companies/${company.id}/webhooks`, endpoint, 'endpoint-idem-slash');
  t.not(recreated.body.id, created.body.id);
});
