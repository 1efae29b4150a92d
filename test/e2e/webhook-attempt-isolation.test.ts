import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { startTestWorker, type TestWorker } from '../support/worker';
import { eventually } from '../support/eventually';

// A tenant's receivers that hang (no answer until the attempt's 10 s timeout) fill the slots of
// the webhook attempts' own worker (worker/create-worker.ts createWorkers), never the main
// worker's: the deep health check, whose activity runs there, still answers at once. Slots are
// made small so a handful of deliveries fills them: 2 main activity slots, 2 attempt slots, 1
// inline attempt.
let api: TestApi;
let worker: TestWorker;
const hanging = new Set<http.ServerResponse>();
const receiver = http.createServer((_request, response) => void hanging.add(response));

test.before(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.database, api.config, {
    env: { ...process.env, TEMPORAL_MAX_ACTIVITIES: '2', TEMPORAL_MAX_WEBHOOK_ATTEMPTS: '2', TEMPORAL_INLINE_WEBHOOK_ATTEMPTS: '1' },
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
});
test.after.always(async () => {
  for (const response of hanging) response.destroy();
  receiver.closeAllConnections();
  receiver.close();
  await worker?.stop();
  await api?.close();
});

test('receivers that hang hold the attempt worker only: the deep health check still answers at once', async (t) => {
  t.timeout(120_000);
  const company = await seedCompany(api.database, 'Receptores Lentos S.A.S.', '900222333');
  const { key } = await seedKey(api.database, { scopes: ['webhooks:manage'], role: 'admin', companyIds: [company.id] });
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${api.url}${path}`, { method, headers: { ...bearer(key), 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
  const created = await call('POST', `/v1/companies/${company.id}/webhooks`, { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook` });
  t.is(created.status, 201);
  const endpoint = (await created.json()) as { id: number };

  // 1 attempt inline, the others deferred to activity tasks: more than the 2 main activity slots.
  for (let i = 0; i < 6; i++) t.is((await call('POST', `/v1/webhooks/${endpoint.id}/test`)).status, 202);
  await eventually(async () => (hanging.size >= 3 ? true : undefined), 20_000);

  const started = Date.now();
  const health = await fetch(`${api.url}/healthz?deep=true`);
  const body = (await health.json()) as { checks: { worker: { status: string; error?: string } } };
  t.is(health.status, 200, JSON.stringify(body));
  t.is(body.checks.worker.status, 'ok');
  t.true(Date.now() - started < 5_000, 'answered within the check\'s 5 s');
  t.true(hanging.size <= 3, 'the attempts wait for their own slots: one inline, two on the attempt worker');
});
