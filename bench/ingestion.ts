import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { connectDatabase, type Database } from '../db/connection';
import { statementsRun } from './support/postgres-statements';
import { freePort } from '../scripts/embedded/ports';
import { INPUT_TYPES, makeFiles, type BenchFile, type InputType } from './ingestion/inputs';
import { startImportEventReceiver, type ImportEventReceiver } from './ingestion/receiver';
import { uploadAll, uploadFile, type UploadedFile } from './ingestion/upload';
import { measurePdfRendering, type PdfRenderResult } from './pdf-render';
import { measureParsing, parsingTable } from './ingestion/parsing';
import { DefaultLogger, Runtime } from '@temporalio/worker';
import {
  assertRunning,
  reportPeakRss,
  RssSampler,
  spawnApiAndWorker,
  waitForHttp,
  withOutput,
  type ChildProcessHandle as NodeChild,
} from './support/child-process';
import { CleanupStack } from './support/cleanup';
import { runMain } from './support/cli';
import { apiAndWorkerEnv, startIngestionEnvironment, type IngestionEnvironment } from './support/environment';
import { fixedOrDash as fixed, markdownTable } from './support/report';
import { percentile } from './support/stats';
import { startNoopBaseline } from './support/noop-baseline';
import { Client, Connection } from '@temporalio/client';
import { formatCostTable, heartbeatRequests, measureTemporalCost, type TemporalCost } from './support/temporal-cost';
import { cpuMsPerUnitOf, formatThreadCpu, processCpuMs, sharedCpuSources, startCpuWindow, startThreadCpuWindow, totalCpuMs, type CpuSource } from './support/process-cpu';

/**
 * `npm run bench:ingestion [-- --short] [-- --parsing]`: upload → document.imported latency and
 * throughput of the real API and worker (child processes) for XML, ZIP and bare-PDF uploads, plus
 * renderInvoicePdf timings and the parsing figures of bench/ingestion/parsing.ts (pre-scan of
 * 20 MB hostile XML, full parse against raw fast-xml-parser, parseUbl documents per second).
 * `--parsing` measures only the parsing figures, in this process, with no services. Starts Postgres and Temporal itself, works offline, cleans up, and
 * exits non-zero on any failed import, missing event or non-2xx answer. See docs/performance.md.
 *
 * Environment: BENCH_SHORT=1 (or --short), BENCH_FILES (per type; 200, short 30),
 * BENCH_CONCURRENCY (uploads in flight; 8), BENCH_PDF_ITERATIONS (50, short 10).
 */

type Options = {
  short: boolean;
  files: number;
  serialFiles: number;
  concurrency: number;
  pdfIterations: number;
  /** Files of each type sent one at a time first (the first runs, the modules, the pools). */
  warmupFiles: number;
  /** Then files of each type sent as the bursts send them (the paths a burst takes: queues, slots, backlogs), not counted. */
  warmupBurst: number;
  idleTimeoutMs: number;
};

type TypeResult = {
  type: InputType;
  mode: string;
  files: number;
  seconds: number;
  filesPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  acceptedP50Ms: number;
  importedP50Ms: number;
  apiPeakRssMb: number | null;
  workerPeakRssMb: number | null;
  /**
   * files/s ÷ the no-op baseline's workflows/s, measured right before and right after the burst
   * (bursts only; the two combined as one run of both: their harmonic mean).
   */
  vsBaseline?: number;
  /** files/s ÷ the baseline right after the burst alone (how it was measured before 2026-11-25, session 35). */
  vsBaselineAfter?: number;
  /** What the engine did on the service's task queue during the phase (bench/support/temporal-cost.ts). */
  temporalCost: TemporalCost;
  /** CPU ms per file of each process during the phase (api, worker, temporal, postgres, bench). */
  cpuMsPerFile: Map<string, number | null>;
  /** Statements Postgres ran per file during the phase, the API's and the worker's (bench/support/postgres-statements.ts). */
  statementsPerFile: number;
};

const log = (line: string) => process.stderr.write(`[bench:ingestion] ${line}\n`);

function positiveInteger(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

function readOptions(): Options {
  const short = process.argv.includes('--short') || ['1', 'true', 'yes'].includes(process.env.BENCH_SHORT ?? '');
  const concurrency = positiveInteger('BENCH_CONCURRENCY', 8);
  return {
    short,
    files: positiveInteger('BENCH_FILES', short ? 30 : 200),
    serialFiles: positiveInteger('BENCH_SERIAL_FILES', short ? 5 : 20),
    concurrency,
    pdfIterations: positiveInteger('BENCH_PDF_ITERATIONS', short ? 10 : 50),
    warmupFiles: 3,
    warmupBurst: 3 * concurrency,
    idleTimeoutMs: 120_000,
  };
}

async function main(): Promise<number> {
  const options = readOptions();
  const cleanup = new CleanupStack(log);
  cleanup.exitOnSignals();
  const load = os.loadavg()[0];
  if (load > os.cpus().length * 0.5) log(`warning: load average ${load.toFixed(2)} on ${os.cpus().length} cores; the numbers will be noisy`);
  log(`${options.short ? 'short mode: ' : ''}${options.files} files per type, ${options.concurrency} uploads in flight, ${options.pdfIterations} PDF renders each`);

  if (process.argv.includes('--parsing')) {
    process.stdout.write(`${parsingHeading(options)}\n\n${parsingTable(measureParsing(options.short, log))}\n`);
    return 0;
  }
  // Before any NativeConnection: the in-process baseline worker logs warnings only.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  try {
    log('parsing figures (one core, CPU time)…');
    const parsing = measureParsing(options.short, log);
    const environment = await startIngestionEnvironment(cleanup, log);
    const ingestion = await measureIngestion(environment, options, cleanup);
    log(`rendering PDFs (${options.pdfIterations} iterations each)…`);
    const pdf = await measurePdfRendering(options.pdfIterations);
    process.stdout.write(`${report(options, ingestion, pdf)}\n\n${parsingTable(parsing)}\n`);
    return 0;
  } catch (error) {
    log(`FAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return 1;
  } finally {
    await cleanup.runAll();
  }
}

async function measureIngestion(environment: IngestionEnvironment, options: Options, cleanup: CleanupStack): Promise<TypeResult[]> {
  const receiver = await startImportEventReceiver();
  cleanup.push('close the webhook receiver', () => receiver.close());

  const port = await freePort();
  const apiUrl = `http://127.0.0.1:${port}`;
  const env = await apiAndWorkerEnv(environment, { port, taskQueuePrefix: 'bench-ingestion', extra: { BLOB_STORE: 'filesystem' } });
  const { api, worker } = spawnApiAndWorker(env, cleanup);
  const apiRss = new RssSampler(api.pid);
  const workerRss = new RssSampler(worker.pid);
  apiRss.start();
  workerRss.start();
  cleanup.push('stop sampling RSS', async () => {
    apiRss.stop();
    workerRss.stop();
  });

  const started = performance.now();
  const healthProbe = { intervalMs: 250, probeTimeoutMs: 10_000 };
  await waitForHttp(`${apiUrl}/healthz`, { accept: 200, timeoutMs: 90_000, ...healthProbe, watch: [api, worker] });
  log(`API up at ${apiUrl} (pid ${api.pid}) after ${fixed((performance.now() - started) / 1000, 1)} s`);
  await waitForHttp(`${apiUrl}/healthz?deep=true`, { accept: 200, timeoutMs: 180_000, ...healthProbe, watch: [api, worker] });
  log(`worker polling (pid ${worker.pid}) after ${fixed((performance.now() - started) / 1000, 1)} s`);

  const { authorization, companyId } = environment;
  await registerEndpoint(apiUrl, authorization, companyId, `${receiver.baseUrl}/imported`, 'document.imported');
  await registerEndpoint(apiUrl, authorization, companyId, `${receiver.baseUrl}/failed`, 'document.import_failed');

  const upload = (file: BenchFile) => uploadFile(apiUrl, authorization, companyId, file);
  const alive = () => assertRunning([api, worker], '');

  // Warm-up, not counted: a few files of each type through the whole path (first workflow runs,
  // JIT, pools), then a small burst of each at the bursts' concurrency. With the first part alone
  // the first measured burst (XML) also warmed what only concurrency reaches (the engine's task
  // backlog, every slot and pooled connection), and was the slowest of three in most runs.
  for (const [count, label] of [[options.warmupFiles, 'WARM'], [options.warmupBurst, 'WARMBURST']] as const) {
    for (const type of INPUT_TYPES) {
      const files = await makeFiles(type, count, label);
      const uploaded = await uploadAll(files, options.concurrency, upload);
      await waitForEvents(receiver, uploaded.map((file) => file.fileId), options, api, worker);
    }
  }
  log(`warm-up done (${options.warmupFiles} files of each type one at a time, then ${options.warmupBurst} in a burst)`);

  const db = connectDatabase(environment.databaseUrl, 1);
  cleanup.push('close the benchmark\'s database connection', () => db.destroy());
  const connection = await Connection.connect({ address: environment.temporalAddress });
  cleanup.push('close the Temporal client connection', () => connection.close());
  const temporal = { client: new Client({ connection, namespace: 'default' }), taskQueue: env.TEMPORAL_TASK_QUEUE!, metricsUrl: environment.temporalMetricsUrl };
  const cpuSources = await cpuSourcesOf(environment, api, worker);
  const phase = { receiver, options, api, worker, apiRss, workerRss, db, upload, alive, temporal, cpuSources };

  const baseline = await startNoopBaseline(environment.temporalAddress, cleanup);
  await baseline.run((options.warmupFiles + options.warmupBurst) * INPUT_TYPES.length, options.concurrency);
  const results: TypeResult[] = [];
  // The yardstick right before and right after each burst (the one after a burst is the one before
  // the next), as many workflows with as many in flight: drift during the burst affects both
  // alike, and one baseline run of a second or two, which moved by ±15 % from one to the next,
  // weighs half.
  let baselineBefore = await baseline.run(options.files, options.concurrency);
  for (const type of INPUT_TYPES) {
    const files = await makeFiles(type, options.files, 'BURST');
    const result = await measurePhase(phase, type, `burst of ${files.length}, ${options.concurrency} in flight`, files, options.concurrency, false);
    const baselineAfter = await baseline.run(options.files, options.concurrency);
    const bracketing = 2 / (1 / baselineBefore + 1 / baselineAfter);
    result.vsBaseline = result.filesPerSecond / bracketing;
    result.vsBaselineAfter = result.filesPerSecond / baselineAfter;
    log(
      `  no-op baseline: ${fixed(baselineBefore, 1)} workflows/s before, ${fixed(baselineAfter, 1)} after (${fixed(bracketing, 1)} together) → ` +
        `${type} burst at ${fixed(result.vsBaseline, 2)}× the baseline (${fixed(result.vsBaselineAfter, 2)}× the one after alone)`,
    );
    results.push(result);
    baselineBefore = baselineAfter;
  }
  for (const type of INPUT_TYPES) {
    const files = await makeFiles(type, options.serialFiles, 'SERIAL');
    results.push(await measurePhase(phase, type, `one at a time`, files, 1, true));
  }

  const malformed = receiver.malformed();
  if (malformed.length > 0) throw new Error(`the receiver got ${malformed.length} malformed request(s), e.g. ${malformed[0]}`);
  if (receiver.duplicates() > 0) log(`note: ${receiver.duplicates()} duplicate deliveries (at-least-once), ignored`);

  reportPeakRss(log, [{ name: 'api', sampler: apiRss }, { name: 'worker', sampler: workerRss }]);
  // Stop the servers now so the PDF timings do not share the CPU with them.
  await worker.stop();
  await api.stop();
  return results;
}

type Phase = {
  receiver: ImportEventReceiver;
  options: Options;
  api: NodeChild;
  worker: NodeChild;
  apiRss: RssSampler;
  workerRss: RssSampler;
  db: Database;
  upload: (file: BenchFile) => Promise<UploadedFile>;
  alive: () => void;
  /** The service's queue, and the dev server's metrics (heartbeats are in no history). */
  temporal: { client: Client; taskQueue: string; metricsUrl: string };
  cpuSources: CpuSource[];
};

/**
 * The processes whose CPU time a phase reports: the API, the worker (its CPU pool's threads
 * included), the Temporal dev server, Postgres (postmaster and backends) and this process (the
 * receiver and the uploads).
 */
async function cpuSourcesOf(environment: IngestionEnvironment, api: NodeChild, worker: NodeChild): Promise<CpuSource[]> {
  return [
    { name: 'api', read: () => processCpuMs(api.pid) },
    { name: 'worker', read: () => processCpuMs(worker.pid) },
    ...(await sharedCpuSources(environment)),
  ];
}

/**
 * Uploads `files` (at most `concurrency` in flight; with `serial`, each upload waits for the
 * previous file's event) and waits for every document.imported.
 */
async function measurePhase(phase: Phase, type: InputType, mode: string, files: BenchFile[], concurrency: number, serial: boolean): Promise<TypeResult> {
  const { receiver, options, api, worker, apiRss, workerRss, db } = phase;
  phase.alive();
  await Promise.all([apiRss.reset(), workerRss.reset()]);
  const window = { from: new Date(), to: new Date() };
  const heartbeatsBefore = await heartbeatRequests(phase.temporal.metricsUrl);
  const statementsBefore = await statementsRun(db);
  const cpuUsed = await startCpuWindow(phase.cpuSources);
  const workerThreadCpu = await startThreadCpuWindow(worker.pid);
  let uploaded: UploadedFile[];
  if (serial) {
    uploaded = [];
    for (const file of files) {
      const one = await phase.upload(file);
      await waitForEvents(receiver, [one.fileId], options, api, worker);
      uploaded.push(one);
    }
  } else {
    uploaded = await uploadAll(files, concurrency, phase.upload);
  }
  const ids = uploaded.map((file) => file.fileId);
  await waitForEvents(receiver, ids, options, api, worker);
  const [apiPeak, workerPeak] = await Promise.all([apiRss.phasePeakMb(), workerRss.phasePeakMb()]);
  phase.alive();
  // The runs' last workflow tasks complete just after the webhook is answered.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const cpuMsPerFile = cpuMsPerUnitOf(await cpuUsed(), files.length);
  const statementsPerFile = ((await statementsRun(db)) - statementsBefore) / files.length;
  const workerThreads = await workerThreadCpu();
  log(`  worker CPU ms per file by thread: ${formatThreadCpu(workerThreads, files.length, 1)}`);
  window.to = new Date();
  const heartbeats = (await heartbeatRequests(phase.temporal.metricsUrl)) - heartbeatsBefore;
  const { total: temporalCost } = await measureTemporalCost(phase.temporal.client, { taskQueue: phase.temporal.taskQueue, window, heartbeats });

  const latencies: number[] = [];
  const accepted: number[] = [];
  let lastEvent = 0;
  for (const file of uploaded) {
    const event = receiver.events.get(file.fileId)!;
    checkImported(type, event.data);
    latencies.push(event.receivedAt - file.startedAt);
    accepted.push(file.answeredAt - file.startedAt);
    lastEvent = Math.max(lastEvent, event.receivedAt);
  }
  // Stored → imported, on the database's clock: the part of the latency before the event is published.
  const rows = await db('uploaded_files')
    .whereIn('id', ids)
    .select<{ ms: string | number }[]>(db.raw('extract(epoch from processed_at - created_at) * 1000 as ms'));
  const importMs = rows.map((row) => Number(row.ms)).sort((a, b) => a - b);
  latencies.sort((a, b) => a - b);
  accepted.sort((a, b) => a - b);
  const firstStart = Math.min(...uploaded.map((file) => file.startedAt));
  const seconds = (lastEvent - firstStart) / 1000;
  const result: TypeResult = {
    type,
    mode,
    files: files.length,
    seconds,
    filesPerSecond: files.length / seconds,
    latencyP50Ms: percentile(latencies, 0.5),
    latencyP99Ms: percentile(latencies, 0.99),
    acceptedP50Ms: percentile(accepted, 0.5),
    importedP50Ms: percentile(importMs, 0.5),
    apiPeakRssMb: apiPeak,
    workerPeakRssMb: workerPeak,
    temporalCost,
    cpuMsPerFile,
    statementsPerFile,
  };
  log(
    `${type}, ${mode}: ${result.files} files in ${fixed(seconds, 1)} s (${fixed(result.filesPerSecond, 1)} files/s), ` +
      `p50 ${fixed(result.latencyP50Ms, 0)} ms, p99 ${fixed(result.latencyP99Ms, 0)} ms, 202 p50 ${fixed(result.acceptedP50Ms, 0)} ms, ` +
      `stored→imported p50 ${fixed(result.importedP50Ms, 0)} ms; CPU ms per file: ` +
      [...cpuMsPerFile].map(([name, ms]) => `${name} ${fixed(ms, 1)}`).join(', ') +
      `; ${fixed(statementsPerFile, 2)} Postgres statements per file`,
  );
  return result;
}

/** The event's Uploaded file record must show one new document and nothing skipped. */
function checkImported(type: InputType, data: { id: number; status: string; documents: unknown[]; skipped: unknown[] }): void {
  if (data.status !== 'DONE' || data.documents.length !== 1 || data.skipped.length !== 0) {
    throw new Error(`${type} file ${data.id} was not imported as one new document: ${JSON.stringify(data)}`);
  }
}

async function waitForEvents(receiver: ImportEventReceiver, ids: number[], options: Options, api: NodeChild, worker: NodeChild): Promise<void> {
  let exited: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      receiver.waitFor(ids, options.idleTimeoutMs),
      new Promise<never>((_, reject) => {
        exited = setInterval(() => {
          for (const child of [api, worker]) {
            const exit = child.exitDescription();
            if (exit !== undefined) reject(withOutput(`${child.name} exited (${exit}) while imports were running`, child));
          }
        }, 500);
      }),
    ]);
  } catch (error) {
    throw withOutput(error instanceof Error ? error.message : String(error), api, worker);
  } finally {
    clearInterval(exited);
  }
}

async function registerEndpoint(apiUrl: string, authorization: string, companyId: number, url: string, event: string): Promise<void> {
  const response = await fetch(`${apiUrl}/v1/companies/${companyId}/webhooks`, {
    method: 'POST',
    headers: { authorization, 'content-type': 'application/json' },
    body: JSON.stringify({ url, events: [event] }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`registering the ${event} webhook answered ${response.status}: ${text.slice(0, 300)}`);
}

function parsingHeading(options: Options): string {
  const cpus = os.cpus();
  return `Parsing, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus[0]?.model.trim() ?? 'unknown CPU'}, one core, CPU time${options.short ? ', short mode' : ''}, load average ${os.loadavg()[0].toFixed(1)}`;
}

function report(options: Options, ingestion: TypeResult[], pdf: PdfRenderResult[]): string {
  const dash = '–';
  const rows = [
    ...ingestion.map((result) => [
      `upload → document.imported, ${result.type}, ${result.mode}`,
      String(result.files),
      fixed(result.filesPerSecond, 1),
      result.vsBaseline === undefined ? dash : fixed(result.vsBaseline, 2),
      result.vsBaselineAfter === undefined ? dash : fixed(result.vsBaselineAfter, 2),
      fixed(result.latencyP50Ms, 0),
      fixed(result.latencyP99Ms, 0),
      fixed(result.acceptedP50Ms, 0),
      fixed(result.importedP50Ms, 0),
      fixed(result.apiPeakRssMb, 0),
      fixed(result.workerPeakRssMb, 0),
    ]),
    ...pdf.map((result) => [
      `renderInvoicePdf, ${result.name} (${result.lines} lines, ${Math.round(result.bytes / 1024)} KiB)`,
      String(result.iterations),
      dash,
      dash,
      dash,
      fixed(result.p50Ms, 1),
      fixed(result.p99Ms, 1),
      dash,
      dash,
      dash,
      dash,
    ]),
  ];
  const cpus = os.cpus();
  const heading =
    `Ingestion, ${new Date().toISOString().slice(0, 10)}, Node ${process.version}, ${cpus.length} cores (${cpus[0]?.model.trim() ?? 'unknown CPU'}), ` +
    `${options.short ? 'short mode, ' : ''}${options.concurrency} uploads in flight`;
  const table = markdownTable(
    ['measurement', 'n', 'files/s', 'vs no-op baseline (before and after)', 'vs the baseline after alone', 'p50 ms', 'p99 ms', '202 p50 ms', 'imported p50 ms', 'API peak RSS MiB', 'worker peak RSS MiB'],
    rows,
    [false, true, true, true, true, true, true, true, true, true, true],
  );
  const costs = formatCostTable(ingestion.map((result) => ({ label: `per file, ${result.type}, ${result.mode}`, cost: result.temporalCost, units: result.files })));
  const processes = ingestion[0] ? [...ingestion[0].cpuMsPerFile.keys()] : [];
  const cpu = markdownTable(
    ['CPU ms per file (user + system, /proc)', ...processes, 'total', 'Postgres statements per file'],
    ingestion.map((result) => {
      const values = processes.map((name) => result.cpuMsPerFile.get(name) ?? null);
      return [`${result.type}, ${result.mode}`, ...values.map((value) => fixed(value, 1)), fixed(totalCpuMs(values), 1), fixed(result.statementsPerFile, 2)];
    }),
    [false, ...processes.map(() => true), true, true],
  );
  return (
    `${heading}\n\n${table}\n\nTemporal cost per file (import, its events' deliveries to the subscribed endpoint):\n\n${costs}` +
    `\n\nCPU time per file of each process during the phase (the 1 s settling wait included; bench = uploads and receiver):\n\n${cpu}`
  );
}

runMain(main);
