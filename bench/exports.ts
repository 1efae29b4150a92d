import { randomUUID } from 'node:crypto';
import { Client, Connection } from '@temporalio/client';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { connectDatabase, type Database } from '../db/connection';
import { freePort } from '../scripts/embedded/ports';
import { startImportEventReceiver, type ImportEventReceiver } from './ingestion/receiver';
import { assertRunning, spawnApiAndWorker, waitForHttp, withOutput, type ChildProcessHandle as NodeChild } from './support/child-process';
import { CleanupStack } from './support/cleanup';
import { runMain } from './support/cli';
import { apiAndWorkerEnv, startIngestionEnvironment } from './support/environment';
import { fixedOrDash as fixed, markdownTable } from './support/report';
import { percentile } from './support/stats';
import { formatCostTable, heartbeatRequests, measureTemporalCost, type TemporalCost } from './support/temporal-cost';
import { FAKE_ALEGRA_EMAIL, FAKE_ALEGRA_TOKEN, FAKE_CATEGORY_ID, startFakeAlegra } from '../testing/fake-accounting/alegra';
import { startFakeErp } from '../testing/fake-accounting/generic-erp';

/**
 * `npm run bench:exports [-- --short]`: exports/s end to end — bulk export request → workflow →
 * the loopback fake Alegra or fake ERP → export.succeeded webhook — with the real API and
 * worker as child processes (the ingestion benchmark's environment and helpers), and the
 * Temporal cost per export read from the histories (bench/support/temporal-cost.ts). Exits
 * non-zero on any export.failed, missing event or non-2xx answer. See docs/performance.md.
 *
 * Environment: BENCH_SHORT=1 (or --short), BENCH_EXPORTS (per provider; 300, short 40).
 */
const log = (line: string) => process.stderr.write(`[bench:exports] ${line}\n`);

type Result = { provider: string; exports: number; seconds: number; perSecond: number; p50Ms: number; p99Ms: number; requestsPerExport: number; temporalCost: TemporalCost };
/** After the last event arrives, the delivery workflows' last workflow tasks are still completing. */
const SETTLE_MS = 1_000;

function readOptions() {
  const short = process.argv.includes('--short') || ['1', 'true', 'yes'].includes(process.env.BENCH_SHORT ?? '');
  const raw = process.env.BENCH_EXPORTS;
  const exports = raw ? Number(raw) : short ? 40 : 300;
  if (!Number.isInteger(exports) || exports < 1) throw new Error(`BENCH_EXPORTS must be a positive integer, got "${raw}"`);
  return { short, exports, warmup: 5, idleTimeoutMs: 120_000 };
}

async function main(): Promise<number> {
  const options = readOptions();
  const cleanup = new CleanupStack(log);
  cleanup.exitOnSignals();
  try {
    const environment = await startIngestionEnvironment(cleanup, log);
    const alegra = await startFakeAlegra({
      requestsPerSecond: 1_000_000, // measure our side, not Alegra's 150/min
      taxes: [{ id: '1', name: 'IVA 19%', percentage: '19.00', type: 'IVA', status: 'active' }],
    });
    cleanup.push('stop the fake Alegra', () => alegra.close());
    const erp = await startFakeErp();
    cleanup.push('stop the fake ERP', () => erp.close());
    const receiver = await startImportEventReceiver();
    cleanup.push('close the webhook receiver', () => receiver.close());

    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const env = await apiAndWorkerEnv(environment, { port, taskQueuePrefix: 'bench-exports', extra: { ALEGRA_BASE_URL: alegra.url } });
    const { api, worker } = spawnApiAndWorker(env, cleanup);
    await waitForHttp(`${apiUrl}/healthz?deep=true`, { accept: 200, timeoutMs: 180_000, intervalMs: 250, probeTimeoutMs: 10_000, watch: [api, worker] });
    log(`API and worker up at ${apiUrl}`);

    const { authorization, companyId } = environment;
    const post = async (pathname: string, body: unknown, expected: number) => {
      const response = await fetch(`${apiUrl}${pathname}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await response.text();
      if (response.status !== expected) throw withOutput(`POST ${pathname} answered ${response.status}: ${text.slice(0, 300)}`, api, worker);
      return JSON.parse(text) as Record<string, any>;
    };
    await post(`/v1/companies/${companyId}/webhooks`, { url: `${receiver.baseUrl}/exports`, events: ['export.succeeded', 'export.failed'] }, 201);
    await post(`/v1/companies/${companyId}/integrations`, {
      name: 'alegra', provider: 'alegra', credentials: { email: FAKE_ALEGRA_EMAIL, token: FAKE_ALEGRA_TOKEN }, settings: { category_id: FAKE_CATEGORY_ID },
    }, 201);
    await post(`/v1/companies/${companyId}/integrations`, { name: 'erp', provider: 'generic_http', credentials: { secret: erp.state.secret }, settings: { url: erp.url } }, 201);

    const db = connectDatabase(environment.databaseUrl, 1);
    cleanup.push("close the benchmark's database connection", () => db.destroy());
    const connection = await Connection.connect({ address: environment.temporalAddress });
    cleanup.push('close the Temporal connection', () => connection.close());
    const temporal = new Client({ connection });

    const results: Result[] = [];
    for (const provider of ['alegra', 'erp'] as const) {
      const requestsBefore = () => (provider === 'alegra' ? alegra.state.requests.length : erp.state.requests.length);
      // One export alone first: it creates the supplier in Alegra (concurrent first exports of a new
      // supplier race to create the contact; see docs/exports.md), then a concurrent warm-up.
      await runExports(post, receiver, companyId, provider, await insertInvoices(db, companyId, 1, `FIRST-${provider}`), options.idleTimeoutMs, api, worker);
      const warm = await insertInvoices(db, companyId, options.warmup, `WARM-${provider}`);
      await runExports(post, receiver, companyId, provider, warm, options.idleTimeoutMs, api, worker);
      const ids = await insertInvoices(db, companyId, options.exports, `BENCH-${provider}`);
      const before = requestsBefore();
      const window = { from: new Date(), to: new Date() };
      const heartbeatsBefore = await heartbeatRequests(environment.temporalMetricsUrl);
      const run = await runExports(post, receiver, companyId, provider, ids, options.idleTimeoutMs, api, worker);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
      window.to = new Date();
      const heartbeats = (await heartbeatRequests(environment.temporalMetricsUrl)) - heartbeatsBefore;
      const { total: temporalCost } = await measureTemporalCost(temporal, { taskQueue: env.TEMPORAL_TASK_QUEUE!, window, heartbeats });
      const result: Result = {
        provider: provider === 'alegra' ? 'Alegra (fake)' : 'generic HTTP (fake ERP)',
        exports: ids.length,
        seconds: run.seconds,
        perSecond: ids.length / run.seconds,
        p50Ms: percentile(run.latencies, 0.5),
        p99Ms: percentile(run.latencies, 0.99),
        requestsPerExport: (requestsBefore() - before) / ids.length,
        temporalCost,
      };
      log(`${result.provider}: ${ids.length} exports in ${fixed(run.seconds, 1)} s = ${fixed(result.perSecond, 1)} exports/s, p50 ${fixed(result.p50Ms, 0)} ms, p99 ${fixed(result.p99Ms, 0)} ms`);
      results.push(result);
    }
    process.stdout.write(`${report(options, results)}\n`);
    return 0;
  } catch (error) {
    log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  } finally {
    await cleanup.runAll();
  }
}

let sequence = 0;
/** Purchase invoices as the importer stores them (parsed supplier and lines), one line at 19 %. */
async function insertInvoices(db: Database, companyId: number, count: number, label: string): Promise<number[]> {
  const rows = Array.from({ length: count }, () => {
    sequence += 1;
    return {
      company_id: companyId,
      document_type: 'electronic_invoice',
      kind: 'purchase',
      number: `${label}-${sequence}`,
      cufe: `bench-export-${label}-${sequence}-${randomUUID()}`,
      issued_at: new Date('2026-11-20T15:00:00Z'),
      sub_total: '100.00', vat: '19.00', total: '119.00', currency: 'COP',
      supplier: JSON.stringify({ idNumber: '800197268', dv: '4', idType: '31', name: 'DIAN', email: null }),
      lines: JSON.stringify([{ id: '1', description: 'Servicio', quantity: '1', unitCode: null, unitPrice: '100.00', lineExtensionAmount: '100.00',
        taxes: [{ schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '100.00', taxAmount: '19.00' }] }]),
    };
  });
  const inserted = await db('documents').insert(rows).returning('id');
  return inserted.map((row: { id: number }) => row.id);
}

/** Bulk requests of 100 (all sent at once), then waits for every export's event; latency = event − its request's start. */
async function runExports(
  post: (pathname: string, body: unknown, expected: number) => Promise<Record<string, any>>,
  receiver: ImportEventReceiver,
  companyId: number,
  integration: string,
  documentIds: number[],
  idleTimeoutMs: number,
  api: NodeChild,
  worker: NodeChild,
): Promise<{ seconds: number; latencies: number[] }> {
  const started = performance.now();
  const chunks: number[][] = [];
  for (let i = 0; i < documentIds.length; i += 100) chunks.push(documentIds.slice(i, i + 100));
  const requested = new Map<number, number>();
  await Promise.all(
    chunks.map(async (chunk) => {
      const at = performance.now();
      const answer = await post(`/v1/companies/${companyId}/exports`, { integration, document_ids: chunk }, 202);
      if (answer.errors.length > 0) throw new Error(`bulk export refused documents: ${JSON.stringify(answer.errors.slice(0, 3))}`);
      for (const record of answer.data as { id: number }[]) requested.set(record.id, at);
    }),
  );
  let lastProgress = performance.now();
  let seen = 0;
  for (;;) {
    for (const [id] of requested) {
      const event = receiver.events.get(id);
      if (event && event.type !== 'export.succeeded') throw new Error(`export ${id}: ${event.type} ${JSON.stringify(event.data)}`);
    }
    const arrived = [...requested.keys()].filter((id) => receiver.events.has(id)).length;
    if (arrived === requested.size) break;
    if (arrived > seen) {
      seen = arrived;
      lastProgress = performance.now();
    }
    assertRunning([api, worker], 'during the exports');
    if (performance.now() - lastProgress > idleTimeoutMs) throw withOutput(`no progress for ${idleTimeoutMs / 1000} s (${arrived}/${requested.size})`, api, worker);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const latencies = [...requested].map(([id, at]) => receiver.events.get(id)!.receivedAt - at).sort((a, b) => a - b);
  const last = Math.max(...[...requested.keys()].map((id) => receiver.events.get(id)!.receivedAt));
  return { seconds: (last - started) / 1000, latencies };
}

function report(options: ReturnType<typeof readOptions>, results: Result[]): string {
  const cpus = os.cpus();
  const heading =
    `Exports, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ` +
    `${options.short ? 'short mode, ' : ''}bulk requests of 100, loopback fakes`;
  const table = markdownTable(
    ['integration', 'exports', 'exports/s', 'request → event p50 ms', 'p99 ms', 'HTTP requests per export'],
    results.map((r) => [r.provider, String(r.exports), fixed(r.perSecond, 1), fixed(r.p50Ms, 0), fixed(r.p99Ms, 0), fixed(r.requestsPerExport, 1)]),
    [false, true, true, true, true, true],
  );
  const costs = formatCostTable(results.map((r) => ({ label: `per export, ${r.provider}`, cost: r.temporalCost, units: r.exports })));
  return `${heading}\n\n${table}\n\nTemporal cost per export (its workflow and its export.succeeded delivery to 1 endpoint):\n\n${costs}`;
}

runMain(main);
