import test from 'ava';
import { startMetricsServer, type MetricsServer } from '../../config/metrics';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { sampleSum, scrape as scrapeUrl, type Family } from '../support/prometheus';

// GET /metrics (Prometheus text format) on its own port; the API's counters move with traffic.
let api: TestApi;
let metrics: MetricsServer;

test.before(async () => {
  api = await startTestApi();
  metrics = (await startMetricsServer({ port: 0, host: '127.0.0.1', listenPort: 0 }))!;
});
test.after.always(async () => {
  await metrics?.close();
  await api?.close();
});

const scrape = () => scrapeUrl(metrics.url);
const requestCount = (families: Family[], labels: Record<string, string>) => sampleSum(families, 'http_requests_total', labels);

test('metrics parse, counters move with real requests, by route template and status', async (t) => {
  const company = await seedCompany(api.database);
  const { key } = await seedKey(api.database, { scopes: ['documents:read'], role: 'admin' });
  const route = '/v1/companies/:company_id/invoices';
  const before = await scrape();
  const okBefore = requestCount(before, { method: 'GET', route, status: '200' });
  const deniedBefore = requestCount(before, { method: 'GET', route: 'unmatched', status: '401' });

  for (let i = 0; i < 3; i += 1) t.is((await fetch(`${api.url}/v1/companies/${company.id}/invoices`, { headers: bearer(key) })).status, 200);
  t.is((await fetch(`${api.url}/v1/companies/${company.id}/invoices`, { headers: bearer('inv_bogus') })).status, 401);

  const after = await scrape();
  t.is(requestCount(after, { method: 'GET', route, status: '200' }) - okBefore, 3);
  // Authentication answers before routing: no template, and the path (with ids) is never a label.
  t.true(requestCount(after, { method: 'GET', status: '401' }) >= deniedBefore + 1);
  t.false(JSON.stringify(after).includes(`/v1/companies/${company.id}/invoices`));
  const histogram = after.find((f) => f.name === 'http_request_duration_seconds');
  t.is(histogram?.type, 'HISTOGRAM');
  t.truthy(after.find((f) => f.name === 'nodejs_eventloop_lag_seconds'), 'default metrics include event-loop lag');
  t.truthy(after.find((f) => f.name === 'nodejs_eventloop_lag_p99_seconds'), 'and its percentiles (monitorEventLoopDelay)');
  t.is((await fetch(metrics.url.replace('/metrics', '/other'))).status, 404);
});

test('the event-loop delay histogram records a blocked loop in its upper buckets', async (t) => {
  const bucket = (families: Family[], le: string) => Number(families.find((f) => f.name === 'nodejs_eventloop_delay_seconds')?.metrics[0]?.buckets?.[le] ?? 0);
  const before = await scrape();
  t.is(before.find((f) => f.name === 'nodejs_eventloop_delay_seconds')?.type, 'HISTOGRAM');
  const blocked = Date.now();
  while (Date.now() - blocked < 300) {
    // The loop is blocked for 300 ms: its next delay sample is at least that.
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  const after = await scrape();
  t.true(bucket(after, '+Inf') > bucket(before, '+Inf'), 'samples were added');
  const over250ms = (families: Family[]) => bucket(families, '+Inf') - bucket(families, '0.25');
  // The blocked stretch, and maybe another test of this file's; the idle samples stay low.
  t.true(over250ms(after) - over250ms(before) >= 1, 'a sample over 250 ms');
  t.true(over250ms(after) - over250ms(before) < bucket(after, '+Inf') - bucket(before, '+Inf'));
});
