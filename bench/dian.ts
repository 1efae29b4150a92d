import { createHash } from 'node:crypto';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { demoInvoiceXml } from '../admin/demo-documents';
import { connectDatabase } from '../db/connection';
import { startDianSimulator, type DianSimulator } from '../integrations/dian/simulator/server';
import { freePort } from '../scripts/embedded/ports';
import { generateTestPkcs12 } from '../testing/dian-certificates';
import { workflowIdsFor } from '../workflows/messages';
import { CleanupStack as Cleanup } from './support/cleanup';
import { startIngestionEnvironment } from './support/environment';
import { apiAndWorkerEnv } from './support/environment';
import { COMPANY_NIT } from './ingestion/inputs';
import { reportPeakRss, RssSampler, spawnChildProcess, withOutput, type ChildProcessHandle as NodeChild } from './support/child-process';
import { startImportEventReceiver, type ImportEventReceiver } from './ingestion/receiver';
import { fixedOrDash as fixed, markdownTable } from './support/report';
import { formatCostTable, heartbeatRequests, measureTemporalCost, type TemporalCost } from './support/temporal-cost';
import { cpuMsPerUnit, cpuSecondsByPart, type CpuByPart } from './support/process-cpu';

/**
 * `npm run bench:dian [-- --short]`: one tax-authority import run (source dian_web_service) of
 * synthetic received invoices listed and served by the DIAN simulator, end to end through the
 * real API and worker (child processes): POST /dian-imports → dian_import.completed. Reports
 * documents/s (found ÷ wall time) and the peak RSS of both processes. Reuses the ingestion
 * benchmark's environment (Postgres + Temporal dev server, company NIT 900108281), process,
 * RSS, receiver and table helpers. Exits non-zero if the run is not DONE with every document
 * created.
 *
 * Environment: BENCH_SHORT=1 (or --short), BENCH_DOCUMENTS (2000, short 200).
 */

const SUPPLIER_NIT = '800197268';
const WARMUP_DOCUMENTS = 10;
const log = (line: string) => process.stderr.write(`[bench:dian] ${line}\n`);

type Options = { short: boolean; documents: number };

type RunResult = {
  label: string;
  documents: number;
  seconds: number;
  documentsPerSecond: number;
  acceptedMs: number;
  apiPeakRssMb: number | null;
  workerPeakRssMb: number | null;
  /** Events in the run's workflow history (Temporal refuses a history over 51,200 events). */
  historyEvents: number;
  /** Everything the engine did on the worker's task queue during the run (bench/support/temporal-cost.ts). */
  temporalCost: TemporalCost;
  /** CPU ms per document by process (bench/support/process-cpu.ts): robust to the machine's load, unlike the wall time. */
  cpuMsPerDocument: CpuByPart;
  /** Postgres transactions committed per document (pg_stat_database.xact_commit: each autocommitted statement is one). */
  transactionsPerDocument: number;
};

function readOptions(): Options {
  const short = process.argv.includes('--short') || ['1', 'true', 'yes'].includes(process.env.BENCH_SHORT ?? '');
  const raw = process.env.BENCH_DOCUMENTS;
  const documents = raw ? Number(raw) : short ? 200 : 2000;
  if (!Number.isInteger(documents) || documents < 1) throw new Error(`BENCH_DOCUMENTS must be a positive integer, got "${raw}"`);
  return { short, documents };
}

const cufeOf = (label: string, n: number) => createHash('sha384').update(`bench-dian-${label}-${n}`).digest('hex');

/**
 * Adds `count` synthetic invoices (supplier 800197268, customer the company) to the
 * simulator's catalog. The listing filters on the catalog's issue date, so each batch gets its
 * own month and runs do not see each other's documents.
 */
function seedCatalog(simulator: DianSimulator, label: string, count: number, issueDate: string): void {
  for (let i = 0; i < count; i += 1) {
    const cufe = cufeOf(label, i);
    simulator.addDocument(cufe, demoInvoiceXml(`FE-${label}-${i}`, cufe, SUPPLIER_NIT, COMPANY_NIT), {
      receiverNit: COMPANY_NIT, senderNit: SUPPLIER_NIT, issueDate, documentType: '01',
    });
  }
}

async function main(): Promise<number> {
  const options = readOptions();
  const cleanup = new Cleanup(log);
  cleanup.exitOnSignals();
  const load = os.loadavg()[0];
  if (load > os.cpus().length * 0.5) log(`warning: load average ${load.toFixed(2)} on ${os.cpus().length} cores; the numbers will be noisy`);
  log(`${options.short ? 'short mode: ' : ''}an import run of ${options.documents} documents`);
  try {
    const environment = await startIngestionEnvironment(cleanup, log);
    const simulator = await startDianSimulator();
    cleanup.push('stop the DIAN simulator', () => simulator.close());
    seedCatalog(simulator, 'WARM', WARMUP_DOCUMENTS, '2026-10-02');
    seedCatalog(simulator, 'RUN', options.documents, '2026-11-02');
    log(`DIAN simulator at ${simulator.url} with ${WARMUP_DOCUMENTS} + ${options.documents} documents`);

    const receiver = await startImportEventReceiver();
    cleanup.push('close the webhook receiver', () => receiver.close());
    const port = await freePort();
    const apiUrl = `http://127.0.0.1:${port}`;
    const env = await apiAndWorkerEnv(environment, {
      port,
      taskQueuePrefix: 'bench-dian',
      extra: { BLOB_STORE: 'filesystem', DIAN_SIMULATOR_URL: simulator.url },
    });
    const api = spawnChildProcess({ name: 'api', part: 'api', env });
    cleanup.push('stop the API', () => api.stop());
    const worker = spawnChildProcess({ name: 'worker', part: 'worker', env });
    cleanup.push('stop the worker', () => worker.stop());
    const apiRss = new RssSampler(api.pid);
    const workerRss = new RssSampler(worker.pid);
    apiRss.start();
    workerRss.start();
    cleanup.push('stop sampling RSS', async () => {
      apiRss.stop();
      workerRss.stop();
    });

    const started = performance.now();
    await waitForOk(`${apiUrl}/healthz?deep=true`, 180_000, api, worker);
    log(`API (pid ${api.pid}) and worker (pid ${worker.pid}) up after ${fixed((performance.now() - started) / 1000, 1)} s`);

    const { authorization, companyId } = environment;
    const call = async (method: string, url: string, body: unknown, expected: number) => {
      const response = await fetch(`${apiUrl}${url}`, { method, headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await response.text();
      if (response.status !== expected) throw withOutput(`${method} ${url} answered ${response.status}: ${text.slice(0, 300)}`, api, worker);
      return JSON.parse(text) as Record<string, unknown>;
    };
    const certificate = generateTestPkcs12('clave-bench', { commonName: 'Bench DIAN firma' });
    await call('PUT', `/v1/companies/${companyId}/dian-settings`, {
      environment: 'simulator', software_id: 'c7f0b5a4-1111-4a0e-9d8b-00000000beef', software_pin: '12345',
      certificate_p12_base64: certificate.p12.toString('base64'), certificate_password: certificate.password,
    }, 200);
    for (const event of ['dian_import.completed', 'dian_import.failed']) {
      await call('POST', `/v1/companies/${companyId}/webhooks`, { url: `${receiver.baseUrl}/${event}`, events: [event] }, 201);
    }

    const db = connectDatabase(environment.databaseUrl, 1);
    cleanup.push("close the benchmark's database connection", () => db.destroy());
    const connection = await Connection.connect({ address: environment.temporalAddress });
    cleanup.push('close the Temporal connection', () => connection.close());
    const temporal = new Client({ connection });
    const run = async (label: string, month: string, expected: number): Promise<RunResult> => {
      await Promise.all([apiRss.reset(), workerRss.reset()]);
      const window = { from: new Date(), to: new Date() };
      const heartbeatsBefore = await heartbeatRequests(environment.temporalMetricsUrl);
      const commitsBefore = await committedTransactions(db);
      const cpuBefore = await cpuSecondsByPart({ api: api.pid, worker: worker.pid }, { postgres: environment.workDir });
      const t0 = performance.now();
      const accepted = await call('POST', `/v1/companies/${companyId}/dian-imports`, { begin_date: `${month}-01`, end_date: `${month}-28`, document_type: 'invoice' }, 202);
      const acceptedMs = performance.now() - t0;
      const id = accepted.id as number;
      await waitForRunEvent(receiver, id, api, worker);
      const event = receiver.events.get(id)!;
      const [apiPeak, workerPeak] = await Promise.all([apiRss.phasePeakMb(), workerRss.phasePeakMb()]);
      const record = event.data as unknown as Record<string, unknown>;
      if (event.type !== 'dian_import.completed' || record.status !== 'DONE' || record.found_count !== expected || record.electronic_invoices_count !== expected) {
        throw withOutput(`${label} run ${id} did not import ${expected} documents: ${event.type} ${JSON.stringify(record)}`, api, worker);
      }
      const files = Number((await db('uploaded_files').where({ dian_importation_id: id, status: 'DONE' }).count<{ count: string }[]>({ count: '*' }))[0]!.count);
      if (files !== expected) throw new Error(`${label} run ${id}: ${files} uploaded files DONE, expected ${expected}`);
      const seconds = (event.receivedAt - t0) / 1000;
      const transactionsPerDocument = ((await committedTransactions(db)) - commitsBefore) / expected;
      const cpuMsPerDocument = cpuMsPerUnit(cpuBefore, await cpuSecondsByPart({ api: api.pid, worker: worker.pid }, { postgres: environment.workDir }), expected);
      const { historyLength } = await temporal.workflow.getHandle(workflowIdsFor(env.TEMPORAL_TASK_QUEUE!).dianImport(id)).describe();
      window.to = new Date();
      const heartbeats = (await heartbeatRequests(environment.temporalMetricsUrl)) - heartbeatsBefore;
      const { total: temporalCost } = await measureTemporalCost(temporal, { taskQueue: env.TEMPORAL_TASK_QUEUE!, window, heartbeats });
      const result = {
        label, documents: expected, seconds, documentsPerSecond: expected / seconds, acceptedMs,
        apiPeakRssMb: apiPeak, workerPeakRssMb: workerPeak, historyEvents: historyLength, temporalCost, cpuMsPerDocument, transactionsPerDocument,
      };
      log(`${label}: ${expected} documents in ${fixed(seconds, 1)} s (${fixed(result.documentsPerSecond, 1)} documents/s), 202 in ${fixed(acceptedMs, 0)} ms, ` +
        `peak RSS API ${fixed(apiPeak, 0)} MiB, worker ${fixed(workerPeak, 0)} MiB, ${historyLength} history events, ` +
        `${fixed(transactionsPerDocument, 1)} Postgres transactions per document, CPU ms per document ${Object.entries(cpuMsPerDocument).map(([part, ms]) => `${part} ${fixed(ms, 2)}`).join(', ')}`);
      return result;
    };

    // Warm-up (not reported): first workflow runs, JIT, connection pools.
    await run('warm-up', '2026-10', WARMUP_DOCUMENTS);
    const result = await run(`import run of ${options.documents}`, '2026-11', options.documents);
    if (receiver.malformed().length > 0) throw new Error(`the receiver got malformed requests, e.g. ${receiver.malformed()[0]}`);
    reportPeakRss(log, [{ name: 'api', sampler: apiRss }, { name: 'worker', sampler: workerRss }]);
    process.stdout.write(`${report(options, result)}\n`);
    return 0;
  } catch (error) {
    log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  } finally {
    await cleanup.runAll();
  }
}

/** Transactions committed in the benchmark's database so far (after 2 s: busy backends report their statistics about once a second). */
async function committedTransactions(db: ReturnType<typeof connectDatabase>): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await db.raw('SELECT pg_stat_force_next_flush()').catch(() => undefined); // Postgres 15+
  const row = await db('pg_stat_database').where({ datname: db.raw('current_database()') }).first<{ xact_commit: string }>('xact_commit');
  return Number(row?.xact_commit ?? 0);
}

/**
 * Waits for the run's dian_import.* webhook (the receiver records its arrival time; its
 * waitFor() is for document.imported only); fails early if a child exits.
 */
async function waitForRunEvent(receiver: ImportEventReceiver, id: number, api: NodeChild, worker: NodeChild): Promise<void> {
  const deadline = performance.now() + 60 * 60_000;
  while (!receiver.events.has(id)) {
    for (const child of [api, worker]) {
      const exit = child.exitDescription();
      if (exit !== undefined) throw withOutput(`${child.name} exited (${exit}) during the run`, api, worker);
    }
    if (performance.now() > deadline) throw withOutput(`no dian_import event for run ${id} within an hour`, api, worker);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function waitForOk(url: string, timeoutMs: number, api: NodeChild, worker: NodeChild): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let problem = 'no answer yet';
  for (;;) {
    for (const child of [api, worker]) {
      const exit = child.exitDescription();
      if (exit !== undefined) throw withOutput(`${child.name} exited (${exit}) during start-up`, child);
    }
    if (performance.now() > deadline) throw withOutput(`${url} did not answer 200 within ${timeoutMs / 1000} s (${problem})`, api, worker);
    try {
      const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
      if (response.status === 200) return;
      problem = `${response.status}: ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      problem = error instanceof Error ? error.message : String(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function report(options: Options, result: RunResult): string {
  const cpus = os.cpus();
  const heading =
    `DIAN import run, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ` +
    `${options.short ? 'short mode, ' : ''}simulator in the benchmark process`;
  const table = markdownTable(
    ['measurement', 'documents', 'wall s', 'documents/s', '202 ms', 'API peak RSS MiB', 'worker peak RSS MiB', 'workflow history events'],
    [[
      `POST /dian-imports → dian_import.completed, ${result.label}`,
      String(result.documents),
      fixed(result.seconds, 1),
      fixed(result.documentsPerSecond, 1),
      fixed(result.acceptedMs, 0),
      fixed(result.apiPeakRssMb, 0),
      fixed(result.workerPeakRssMb, 0),
      String(result.historyEvents),
    ]],
    [false, true, true, true, true, true, true, true],
  );
  const costs = formatCostTable([{ label: `per DIAN document, ${result.label}`, cost: result.temporalCost, units: result.documents }]);
  const parts = Object.keys(result.cpuMsPerDocument).sort();
  const cpu = markdownTable(
    ['CPU ms per document', ...parts, 'total', 'Postgres transactions per document'],
    [[result.label, ...parts.map((part) => fixed(result.cpuMsPerDocument[part]!, 2)), fixed(Object.values(result.cpuMsPerDocument).reduce((a, b) => a + b, 0), 2), fixed(result.transactionsPerDocument, 1)]],
    [false, ...parts.map(() => true), true, true],
  );
  return `${heading}\n\n${table}\n\nCPU per document (benchmark = the simulator's process, with the receiver):\n\n${cpu}\n\nTemporal cost per document (the run's workflow, its batches and the documents' events):\n\n${costs}`;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
