import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { startTestApi, type TestApi } from '../support/api';
import { startTestWorker, type TestWorker } from '../support/worker';
import { webhookAdmin } from '../support/webhook-api';
import { eventually } from '../support/eventually';

// A burst to a slow receiver must not delay other endpoints' deliveries (head-of-line blocking).
// Before each endpoint had a share of the worker's attempts, a burst filled every attempt slot and
// the task queue, first come first served, made another endpoint's delivery wait for the whole
// burst (by hand on `npm start`: 60 events to a receiver answering after 9.9 s delayed another
// endpoint's deliveries by 41–49 s). Small slots here: 4 attempt slots, 2 inline, a share of 2.
const SLOW_MS = 3_000;
const BURST = 16;
let api: TestApi;
let worker: TestWorker;
const arrivals = new Map<string, number>();
let slowInFlight = 0;
let slowPeak = 0;
const slow = http.createServer((request, response) => {
  slowInFlight += 1;
  slowPeak = Math.max(slowPeak, slowInFlight);
  request.resume();
  setTimeout(() => {
    slowInFlight -= 1;
    response.end('ok');
  }, SLOW_MS);
});
const healthy = http.createServer((request, response) => {
  arrivals.set(String(request.headers['webhook-id']), Date.now());
  request.resume();
  response.end('ok');
});
const urlOf = (server: http.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;

test.before(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.database, api.config, {
    env: {
      ...process.env,
      TEMPORAL_MAX_WEBHOOK_ATTEMPTS: '4',
      TEMPORAL_INLINE_WEBHOOK_ATTEMPTS: '2',
      WEBHOOK_MAX_ATTEMPTS_PER_ENDPOINT: '2',
      WEBHOOK_MAX_ATTEMPTS_PER_COMPANY: '3',
    },
  });
  await Promise.all([slow, healthy].map((server) => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))));
});
test.after.always(async () => {
  for (const server of [slow, healthy]) {
    server.closeAllConnections();
    server.close();
  }
  await worker?.stop();
  await api?.close();
});

test('a burst to a slow receiver holds its endpoint\'s share only: another endpoint\'s deliveries go out at once', async (t) => {
  t.timeout(240_000);
  const admin = await webhookAdmin(api.database, api.url);
  const slowEndpoint = await admin.createEndpoint(urlOf(slow));
  const healthyEndpoint = await admin.createEndpoint(urlOf(healthy));

  for (let i = 0; i < BURST; i++) t.is((await admin.call('POST', `/v1/webhooks/${slowEndpoint.id}/test`)).status, 202);
  await eventually(async () => (slowInFlight >= 2 ? true : undefined), 20_000);

  // Without shares the burst (16 × 3 s over 4 + 2 slots) kept these waiting for about 8 s.
  const latencies: number[] = [];
  for (let i = 0; i < 3; i++) {
    const sentAt = Date.now();
    const sent = await admin.call('POST', `/v1/webhooks/${healthyEndpoint.id}/test`);
    t.is(sent.status, 202);
    const eventId = String(sent.body!.event_id);
    await eventually(async () => (arrivals.has(eventId) ? true : undefined), 60_000);
    latencies.push(arrivals.get(eventId)! - sentAt);
  }
  t.log(`healthy endpoint's latencies during the burst: ${latencies.join(', ')} ms`);
  t.true(Math.max(...latencies) < 2_000, `latencies ${latencies.join(', ')} ms`);

  // The slow endpoint still gets every event, once each, never more than its share at once; a
  // turn spent waiting for its share is not an attempt.
  const deliveries = await eventually(async () => {
    const page = await admin.call('GET', `/v1/webhooks/${slowEndpoint.id}/deliveries?limit=100`);
    const rows = page.body!.data as { status: string; attempts: number }[];
    return rows.length === BURST && rows.every((row) => row.status === 'delivered') ? rows : undefined;
  }, 200_000);
  t.deepEqual(new Set(deliveries.map((row) => row.attempts)), new Set([1]));
  // Inline attempts are outside the shares (the inline share bounds them): 2 inline + its share of 2 queued.
  t.true(slowPeak <= 4, `at most the inline share and the endpoint's share of the queue at once (saw ${slowPeak})`);
});
