import test from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { startTricklingLink } from '../support/slow-link';

// A database that keeps its connections and stops answering (frozen: SIGSTOP, a stalled disk or
// host), here a relay that holds Postgres's answers for an hour: a read is answered 503 with
// Retry-After once API_READ_TIMEOUT_MS has passed; a write keeps waiting and lands when the
// database answers again (docs/operations.md, "Faults").
const READ_TIMEOUT_MS = 1_000;
let api: TestApi;
let link: Awaited<ReturnType<typeof startTricklingLink>>;
let key: string;
let companyId: number;

test.before(async () => {
  api = await startTestApi(
    { API_READ_TIMEOUT_MS: String(READ_TIMEOUT_MS) },
    {
      databaseRoute: async (url) => {
        link = await startTricklingLink(url, 3_600_000);
        const routed = new URL(url);
        routed.port = new URL(link.url).port;
        routed.searchParams.delete('host'); // TCP to the relay, not the cluster's Unix socket
        return routed.toString();
      },
    },
  );
  companyId = (await seedCompany(api.database, 'Congelada S.A.S.', '900000991')).id;
  key = (await seedKey(api.database, { scopes: ['documents:read', 'webhooks:manage'], role: 'admin' })).key;
});
test.after.always(async () => {
  link?.trickle(false);
  await api?.close();
  await link?.close();
});

test.serial('a read is answered 503 with Retry-After when the database stops answering; a write waits and lands', async (t) => {
  const read = () => fetch(`${api.url}/v1/companies/${companyId}/invoices`, { headers: bearer(key) });
  const first = await read();
  t.is(first.status, 200, `through the relay while it relays: ${await first.text()}`);

  link.trickle(true);
  const writing = fetch(`${api.url}/v1/companies/${companyId}/webhooks`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'application/json' },
    body: JSON.stringify({ url: 'https://receiver.example.com/hooks', events: [] }),
  });
  const startedAt = Date.now();
  const refused = await read();
  const elapsed = Date.now() - startedAt;
  t.is(refused.status, 503);
  t.is(refused.headers.get('retry-after'), '5');
  const body = (await refused.json()) as { error: { code: string; message: string } };
  t.is(body.error.code, 'service_unavailable');
  t.regex(body.error.message, /within 1 s: a dependency is not answering/);
  t.true(elapsed >= READ_TIMEOUT_MS && elapsed < READ_TIMEOUT_MS + 2_000, `answered after ${elapsed} ms`);

  const pending = Symbol('pending');
  t.is(await Promise.race([writing, new Promise((resolve) => setTimeout(() => resolve(pending), READ_TIMEOUT_MS))]), pending, 'a write is not cut');

  link.trickle(false);
  t.is((await writing).status, 201, 'the write lands once the database answers');
  t.is((await read()).status, 200);
});
