import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection, ServiceError, type WorkflowHandle } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createCompany } from '../admin/create-company';
import { emitEvent } from '../api/publish-event';
import { loadConfig } from '../config';
import { loadMasterKey } from '../config/master-key';
import { connectDatabase, type Database } from '../db/connection';
import { statementsRun } from './support/postgres-statements';
import { createRepositories } from '../db/repositories';
import { SecretBox } from '../domain/secret-box';
import { newSealedSecret } from '../domain/webhooks/endpoint-secrets';
import { parseWebhookUrl } from '../domain/webhooks/target-address';
import { MAX_ENDPOINTS_PER_COMPANY } from '../api/v1/webhooks/routes';
import { cpuMsPerUnitOf, formatThreadCpu, processCpuMs, sharedCpuSources, startCpuWindow, startThreadCpuWindow, totalCpuMs, type CpuSource } from './support/process-cpu';
import { RssSampler, spawnChildProcess, type ChildProcessHandle } from './support/child-process';
import { CleanupStack } from './support/cleanup';
import { parseShortAndJson, runMain, warnIfBusy } from './support/cli';
import { metricsPortsEnv, startBenchEnvironment } from './support/environment';
import { emitJsonReport, fixed, machineInfo, markdownTable } from './support/report';
import { runBounded, summarise, waitUntil, type LatencySummary } from './support/stats';
import { formatCostTable, heartbeatRequests, measureTemporalCost, perUnit, type CostRow, type TemporalCost } from './support/temporal-cost';
import { noopWorkflow, type NoopActivities } from './webhooks/noop-workflow';
import { waitForPollers } from './webhooks/pollers';
import { startBenchReceiver, type BenchReceiver } from './webhooks/receiver';

/**
 * `npm run bench:webhooks [-- --short] [-- --json PATH]`: how fast the webhook engine turns
 * emitted events into HTTP deliveries, end to end. The real worker (`worker/main.ts`, child
 * process) runs webhookDeliveryWorkflow → a signed POST to a loopback receiver; events are
 * emitted exactly as the API does (api/publish-event.ts emitEvent: record the event and its
 * deliveries, start the delivery workflows). For
 * E = 1 and 10 endpoints it reports events/s emitted, deliveries/s sustained, emit→receipt
 * p50/p99 and the worker's peak RSS, next to a baseline on the same Temporal server: as many
 * no-op workflows (one no-op activity each) on an in-process worker. After each run it prints the
 * Temporal cost per delivery and per event, read from the histories (bench/support/temporal-cost.ts).
 *
 * N events per E (default 300; 50 with --short or BENCH_SHORT=1; BENCH_EVENTS overrides),
 * BENCH_CONCURRENCY starts in flight (default 32). Starts its own Postgres and Temporal dev
 * server; needs no network. See docs/performance.md.
 */

const ENDPOINT_COUNTS = [1, 10] as const;
const EVENT_TYPE = 'contact.created';
/** Deliveries left over from one run must not overlap the next one's measurements. */
const SETTLE_TIMEOUT_MS = 120_000;
/** Concurrent handle.result() long polls of the baseline; see runBaseline. */
const MAX_RESULT_WAITERS = 500;
/** Baseline result polls the server refused or cut and that were asked again (reported in the JSON). */
let resultRetries = 0;

type Options = { events: number; concurrency: number; warmup: number; short: boolean; jsonPath: string | null; timeoutMs: number | null };

type Scenario = { endpoints: number; companyId: number; pathPrefix: string; paths: string[] };

type WebhookRun = {
  endpoints: number;
  events: number;
  deliveries: number;
  /** first emit started → last emit answered */
  emitSeconds: number;
  eventsPerSecond: number;
  /** first emit started → last delivery received */
  totalSeconds: number;
  deliveriesPerSecond: number;
  /** emit started → delivery received, one value per delivery */
  latencyMs: LatencySummary;
  workerPeakRssMb: number | null;
};

type BaselineRun = {
  workflows: number;
  startSeconds: number;
  startsPerSecond: number;
  /** first start → last completion */
  totalSeconds: number;
  workflowsPerSecond: number;
  /** start called → handle.result() resolved */
  latencyMs: LatencySummary;
};

type Row = {
  webhooks: WebhookRun;
  baseline: BaselineRun;
  throughputRatio: number;
  /**
   * CPU ms per delivery (webhooks) and per workflow (baseline) of each process over its run:
   * the worker, the Temporal dev server, Postgres, and this process (emitter, receiver and the
   * baseline's in-process worker). CPU time barely moves with the machine's load.
   */
  cpuMsPerUnit: { webhooks: Record<string, number | null>; baseline: Record<string, number | null> };
  /** What the engine did on the worker's queue from the first emit until the queue settled (docs/performance.md). */
  temporalCost: { total: TemporalCost; perDelivery: TemporalCost; perEvent: TemporalCost; byWorkflowType: Record<string, TemporalCost> };
  /** Statements Postgres ran per delivery, emits included, until the queue settled (bench/support/postgres-statements.ts). */
  statementsPerDelivery: number;
};

const log = (line: string) => console.error(`[bench:webhooks] ${line}`);

function parseOptions(argv: string[], env: NodeJS.ProcessEnv): Options {
  const { short, jsonPath } = parseShortAndJson(argv, env);
  const positive = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a whole number ≥ 1, got "${raw}"`);
    return value;
  };
  const events = positive('BENCH_EVENTS', short ? 50 : 300);
  const timeoutSeconds = env.BENCH_TIMEOUT_SECONDS ? positive('BENCH_TIMEOUT_SECONDS', 1) : null;
  return {
    events,
    concurrency: positive('BENCH_CONCURRENCY', 32),
    warmup: short ? 10 : 30,
    short,
    jsonPath,
    timeoutMs: timeoutSeconds === null ? null : timeoutSeconds * 1000,
  };
}

/** How long `count` deliveries or workflows may take before the run is declared stuck. */
function timeoutFor(options: Options, count: number): number {
  return options.timeoutMs ?? 60_000 + count * 100;
}

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2), process.env);
  // Before any NativeConnection: the in-process baseline worker logs warnings only.
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const cleanup = new CleanupStack(log);
  cleanup.exitOnSignals();
  const problems: string[] = [];
  const loadAverageAtStart = warnIfBusy(log, 0.5);
  let worker: ChildProcessHandle | null = null;
  try {
    const environment = await startBenchEnvironment({ cleanup, log, companies: 0 });
    const secretsKey = randomBytes(32).toString('base64');
    const config = loadConfig({ NODE_ENV: 'development', SECRETS_ENCRYPTION_KEY: secretsKey, DATA_DIR: environment.workDir });

    // emitEvent records each event and its deliveries before starting them, as the API process
    // does with its pool (DATABASE_POOL_MAX, 10 by default): the load generator gets the same.
    const db = connectDatabase(environment.databaseUrl, config.databasePoolMax);
    cleanup.push('close the database pool', () => db.destroy());
    const repositories = createRepositories(db);
    const secretBox = new SecretBox(loadMasterKey(config));

    const receiver = await startBenchReceiver();
    cleanup.push('stop the receiver', () => receiver.close());
    log(`receiver on ${receiver.baseUrl}`);

    const seedScenario = async (name: string, endpoints: number): Promise<Scenario> => {
      const company = await createCompany(repositories, {
        name: `Bench Webhooks ${name} S.A.S.`,
        nit: String(901_000_000 + Math.floor(Math.random() * 98_999_999)),
      });
      const pathPrefix = `/${name}/`;
      const paths: string[] = [];
      for (let i = 0; i < endpoints; i += 1) {
        const endpointPath = `${pathPrefix}${i}`;
        // As POST /v1/companies/:id/webhooks does: checked URL, new sealed secret, every event (events: []).
        const url = parseWebhookUrl(`${receiver.baseUrl}${endpointPath}`, config.webhooks).toString();
        const { stored } = newSealedSecret(secretBox, new Date());
        await repositories.webhookEndpoints.insertWithinLimit(company.id, MAX_ENDPOINTS_PER_COMPANY, url, [], stored);
        paths.push(endpointPath);
      }
      return { endpoints, companyId: company.id, pathPrefix, paths };
    };
    const warmupScenario = await seedScenario('warmup', 1);
    const scenarios: Scenario[] = [];
    for (const endpoints of ENDPOINT_COUNTS) scenarios.push(await seedScenario(`e${endpoints}`, endpoints));
    log(`seeded ${scenarios.length + 1} companies with ${ENDPOINT_COUNTS.join(', ')} (and 1 warm-up) endpoints on the receiver`);

    const taskQueue = `bench-webhooks-${randomUUID()}`;
    // The real worker in its own process, so its memory is measured alone and it never shares an
    // event loop with the load generator; SIGTERM lets it drain (config/shutdown.ts).
    const startedWorker = spawnChildProcess({
      name: 'worker',
      part: 'worker',
      killTimeoutMs: 15_000,
      env: {
        NODE_ENV: 'development', // loopback targets allowed
        LOG_LEVEL: 'warn',
        DATABASE_URL: environment.databaseUrl,
        TEMPORAL_ADDRESS: environment.temporalAddress,
        TEMPORAL_NAMESPACE: 'default',
        TEMPORAL_TASK_QUEUE: taskQueue,
        SECRETS_ENCRYPTION_KEY: secretsKey,
        DATA_DIR: path.join(environment.workDir, 'worker-data'),
        // The bundle built while the services started, as `npm start` gives its worker: without
        // it the measured process runs webpack at start-up and keeps that heap.
        WORKFLOW_BUNDLE_PATH: environment.workflowBundlePath,
        ...(await metricsPortsEnv()),
      },
    });
    if (startedWorker.pid === -1) throw new Error('could not spawn the worker process');
    worker = startedWorker;
    cleanup.push('stop the worker process', () => startedWorker.stop());
    const rss = new RssSampler(startedWorker.pid, 500);
    rss.start();
    cleanup.push('stop sampling RSS', async () => rss.stop());

    const connection = await Connection.connect({ address: environment.temporalAddress });
    cleanup.push('close the Temporal client connection', () => connection.close());
    const client = new Client({ connection, namespace: 'default' });
    const temporal = { client, taskQueue };

    log(`waiting for the worker (pid ${startedWorker.pid}) to load its workflow bundle and poll ${taskQueue}…`);
    await waitForPollers(client, taskQueue, 180_000, startedWorker.unexpectedExit);

    const baselineQueue = `bench-noop-${randomUUID()}`;
    const nativeConnection = await NativeConnection.connect({ address: environment.temporalAddress });
    cleanup.push('close the baseline worker connection', () => nativeConnection.close());
    const noopActivities: NoopActivities = { noop: async () => undefined };
    const baselineWorker = await Worker.create({
      connection: nativeConnection,
      namespace: 'default',
      taskQueue: baselineQueue,
      workflowsPath: path.resolve(__dirname, 'webhooks/noop-workflow.ts'),
      activities: noopActivities,
    });
    const baselineRunning = baselineWorker.run();
    cleanup.push('stop the baseline worker', async () => {
      if (baselineWorker.getState() === 'RUNNING') baselineWorker.shutdown();
      await baselineRunning;
    });
    await waitForPollers(client, baselineQueue, 60_000, startedWorker.unexpectedExit);
    log(`both workers polling; worker RSS now ${fixed((await rss.phasePeakMb()) ?? Number.NaN, 0)} MB`);

    const phase = { receiver, temporal, options, worker: startedWorker, rss, db, repositories };

    log(`warming up: ${options.warmup} events to 1 endpoint and ${options.warmup} no-op workflows…`);
    await runWebhooks(phase, warmupScenario, options.warmup);
    await settle(client, taskQueue);
    await runBaseline(client, baselineQueue, options.warmup, options);

    const cpuSources: CpuSource[] = [{ name: 'worker', read: () => processCpuMs(startedWorker.pid) }, ...(await sharedCpuSources(environment))];

    const rows: Row[] = [];
    for (const scenario of scenarios) {
      const window = { from: new Date(), to: new Date() };
      const heartbeatsBefore = await heartbeatRequests(environment.temporalMetricsUrl);
      const statementsBefore = await statementsRun(db);
      const webhooksCpu = await startCpuWindow(cpuSources);
      const workerThreadCpu = await startThreadCpuWindow(startedWorker.pid);
      const webhooks = await runWebhooks(phase, scenario, options.events);
      const webhooksCpuMs = await webhooksCpu();
      const workerThreads = await workerThreadCpu();
      log(`E=${scenario.endpoints}: worker CPU ms per delivery by thread: ${formatThreadCpu(workerThreads, webhooks.deliveries, 2)}`);
      log(
        `E=${scenario.endpoints}: ${webhooks.deliveries} deliveries, ${fixed(webhooks.eventsPerSecond, 0)} events/s emitted, ` +
          `${fixed(webhooks.deliveriesPerSecond, 1)} deliveries/s, p50 ${fixed(webhooks.latencyMs.p50, 0)} ms, ` +
          `p99 ${fixed(webhooks.latencyMs.p99, 0)} ms, worker peak RSS ${fixed(webhooks.workerPeakRssMb ?? Number.NaN, 0)} MB`,
      );
      await settle(client, taskQueue);
      const statementsPerDelivery = ((await statementsRun(db)) - statementsBefore) / webhooks.deliveries;
      log(`E=${scenario.endpoints}: ${fixed(statementsPerDelivery, 2)} Postgres statements per delivery`);
      problems.push(...(await checkDeliveryRows(db, scenario, options.events)));
      // Everything on the worker's queue in the window: publish and delivery runs, and the endpoint
      // entities' share of their long histories (their signals and mirror activities of this run).
      window.to = new Date();
      const heartbeats = (await heartbeatRequests(environment.temporalMetricsUrl)) - heartbeatsBefore;
      const cost = await measureTemporalCost(client, { taskQueue, window, heartbeats });
      const temporalCost = {
        total: cost.total,
        perDelivery: perUnit(cost.total, webhooks.deliveries),
        perEvent: perUnit(cost.total, webhooks.events),
        byWorkflowType: Object.fromEntries(cost.byWorkflowType),
      };
      log(`E=${scenario.endpoints}: ${cost.total.executions} executions, ${cost.total.actions} Cloud actions, ${cost.total.historyEvents} history events`);

      const baselineCpu = await startCpuWindow(cpuSources);
      const benchThreadCpu = await startThreadCpuWindow(process.pid);
      const baseline = await runBaseline(client, baselineQueue, webhooks.deliveries, options);
      const baselineCpuMs = await baselineCpu();
      const benchThreads = await benchThreadCpu();
      // The baseline's worker runs in this process: its workflow thread is one of the "node" threads.
      log(`E=${scenario.endpoints}: benchmark process CPU ms per baseline workflow by thread: ${formatThreadCpu(benchThreads, baseline.workflows, 2)}`);
      const cpuMsPerUnit = { webhooks: perUnitCpu(webhooksCpuMs, webhooks.deliveries), baseline: perUnitCpu(baselineCpuMs, baseline.workflows) };
      log(`E=${scenario.endpoints}: CPU ms per delivery ${formatCpu(cpuMsPerUnit.webhooks)}; per baseline workflow ${formatCpu(cpuMsPerUnit.baseline)}`);
      log(
        `baseline ×${baseline.workflows}: ${fixed(baseline.workflowsPerSecond, 1)} workflows/s, ` +
          `p50 ${fixed(baseline.latencyMs.p50, 0)} ms, p99 ${fixed(baseline.latencyMs.p99, 0)} ms`,
      );
      rows.push({ webhooks, baseline, throughputRatio: webhooks.deliveriesPerSecond / baseline.workflowsPerSecond, cpuMsPerUnit, temporalCost, statementsPerDelivery });
    }
    if (receiver.duplicates > 0) log(`note: ${receiver.duplicates} deliveries arrived more than once (at-least-once delivery)`);
    if (receiver.malformed > 0) problems.push(`${receiver.malformed} requests to the receiver had no webhook-id or were not POSTs`);

    const report = {
      date: new Date().toISOString(),
      machine: {
        ...machineInfo(loadAverageAtStart),
        loadAverageAtEnd: Math.round(os.loadavg()[0] * 100) / 100,
        note: 'Temporal dev server (in memory), Postgres, worker, receiver and load generator on the same machine',
      },
      eventsPerRun: options.events,
      concurrency: options.concurrency,
      warmup: options.warmup,
      workerPeakRssMbOverall: rss.overallPeakMb(),
      duplicates: receiver.duplicates,
      baselineResultRetries: resultRetries,
      rows,
      problems,
    };
    console.log(
      `\nWebhooks emit → receipt vs no-op workflow baseline — ${report.date}, N=${options.events} events per run, ` +
        `${options.concurrency} starts in flight, ${report.machine.cpus} cores, Node ${report.machine.node}, ` +
        `1-min load average ${report.machine.loadAverageAtStart} at start, ${report.machine.loadAverageAtEnd} at end\n`,
    );
    console.log(renderTable(rows));
    console.log('\nTemporal cost per unit (from the histories of every execution on the worker\'s queue during each run)\n');
    console.log(formatCostTable(rows.flatMap(costRows)));
    console.log('\nCPU ms per unit by process (/proc user + system over each run; "bench" is the emitter, the receiver and the baseline\'s in-process worker)\n');
    console.log(renderCpuTable(rows));
    await emitJsonReport(report, options.jsonPath, log);
    if (problems.length > 0) log(`FAILED:\n  ${problems.join('\n  ')}`);
  } catch (error) {
    problems.push(error instanceof Error ? (error.stack ?? error.message) : String(error));
    log(`FAILED: ${problems[problems.length - 1]}`);
    const tail = worker?.outputTail();
    if (tail) log(`--- worker output (last lines) ---\n${tail}`);
  } finally {
    log('shutting down…');
    await cleanup.runAll();
  }
  return problems.length === 0 ? 0 : 1;
}

function renderCpuTable(rows: Row[]): string {
  const parts = ['worker', 'temporal', 'postgres', 'bench', 'total'];
  const lines = rows.flatMap((row) => [
    [`per delivery, E=${row.webhooks.endpoints}`, ...parts.map((part) => fixed(row.cpuMsPerUnit.webhooks[part], 1)), fixed(row.statementsPerDelivery, 2)],
    [`per baseline workflow (×${row.baseline.workflows})`, ...parts.map((part) => fixed(row.cpuMsPerUnit.baseline[part], 1)), '–'],
  ]);
  return markdownTable(['unit', ...parts, 'Postgres statements'], lines, [false, ...parts.map(() => true), true]);
}

/** CPU ms per unit of each source and their total, to 2 decimals (null when a source could not be read). */
function perUnitCpu(used: Map<string, number | null>, units: number): Record<string, number | null> {
  const perUnit = cpuMsPerUnitOf(used, units);
  perUnit.set('total', totalCpuMs(perUnit.values()));
  return Object.fromEntries([...perUnit].map(([name, ms]) => [name, ms === null ? null : Math.round(ms * 100) / 100]));
}

function formatCpu(perUnit: Record<string, number | null>): string {
  return Object.entries(perUnit)
    .map(([name, ms]) => `${name} ${ms === null ? '?' : fixed(ms, 1)}`)
    .join(' / ');
}

type PhaseContext = {
  receiver: BenchReceiver;
  temporal: { client: Client; taskQueue: string };
  options: Options;
  worker: ChildProcessHandle;
  rss: RssSampler;
  db: Database;
  repositories: ReturnType<typeof createRepositories>;
};

/** Emits `events` events for the scenario's company and waits until every endpoint received every one. */
async function runWebhooks(context: PhaseContext, scenario: Scenario, events: number): Promise<WebhookRun> {
  const { receiver, temporal, options, worker, rss } = context;
  const expected = events * scenario.endpoints;
  const already = receiver.countUnder(scenario.pathPrefix);
  const emittedAt = new Map<string, number>();
  await rss.reset();

  const firstEmit = performance.now();
  await Promise.race([
    runBounded(events, options.concurrency, async (index) => {
      const startedAt = performance.now();
      const { id } = await emitEvent({ repositories: context.repositories, temporal }, {
        companyId: scenario.companyId,
        type: EVENT_TYPE,
        data: { id: `bench-${index}`, name: `Bench contact ${index}`, nit: String(800_000_000 + index) },
      });
      emittedAt.set(id, startedAt);
    }),
    worker.unexpectedExit,
  ]);
  const lastEmit = performance.now();

  const timeoutMs = timeoutFor(options, expected);
  await waitUntil(() => receiver.countUnder(scenario.pathPrefix) - already >= expected, {
    timeoutMs,
    abort: worker.unexpectedExit,
    describe: async () => {
      const received = receiver.countUnder(scenario.pathPrefix) - already;
      const statuses = await deliveryStatuses(context.db, scenario.companyId).catch((error: unknown) => `(could not read: ${String(error)})`);
      return (
        `only ${received} of ${expected} deliveries (${events} events × ${scenario.endpoints} endpoints) arrived ` +
        `within ${timeoutMs / 1000} s of the last emit; webhook_deliveries of the company by status: ${statuses}. ` +
        'Raise BENCH_TIMEOUT_SECONDS if the machine is just slow.'
      );
    },
  });

  const latencies: number[] = [];
  let lastReceipt = firstEmit;
  for (const endpointPath of scenario.paths) {
    const arrivals = receiver.arrivalsAt(endpointPath);
    for (const [id, startedAt] of emittedAt) {
      const arrivedAt = arrivals.get(id);
      if (arrivedAt === undefined) throw new Error(`event ${id} never reached ${endpointPath}, though ${expected} deliveries arrived`);
      latencies.push(arrivedAt - startedAt);
      lastReceipt = Math.max(lastReceipt, arrivedAt);
    }
  }
  const emitSeconds = (lastEmit - firstEmit) / 1000;
  const totalSeconds = (lastReceipt - firstEmit) / 1000;
  return {
    endpoints: scenario.endpoints,
    events,
    deliveries: expected,
    emitSeconds,
    eventsPerSecond: events / emitSeconds,
    totalSeconds,
    deliveriesPerSecond: expected / totalSeconds,
    latencyMs: summarise(latencies),
    workerPeakRssMb: await rss.phasePeakMb(),
  };
}

/**
 * Starts `count` no-op workflows (the same bound on starts in flight as for emits) and waits for
 * every result. Only starts count against the bound; results are awaited in start order by at
 * most MAX_RESULT_WAITERS concurrent handle.result() long polls, because the server refuses
 * concurrent long polls beyond a per-namespace limit (frontend.namespaceCount, 1200 by default)
 * and 3000 would exceed it. Workflows
 * complete roughly in start order, so the oldest ones are the ones being waited for.
 */
async function runBaseline(client: Client, taskQueue: string, count: number, options: Options): Promise<BaselineRun> {
  const runId = randomUUID().slice(0, 8);
  const latencies: number[] = [];
  const failures: string[] = [];
  const queued: { handle: WorkflowHandle<typeof noopWorkflow>; startedAt: number }[] = [];
  let waiting = 0;
  let lastCompletion = 0;
  let settled = 0;
  let allSettled: () => void = () => undefined;
  const done = new Promise<void>((resolve) => (allSettled = resolve));

  const awaitResult = async (handle: WorkflowHandle<typeof noopWorkflow>, startedAt: number) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await handle.result();
        const completedAt = performance.now();
        latencies.push(completedAt - startedAt);
        lastCompletion = Math.max(lastCompletion, completedAt);
        return;
      } catch (error) {
        // A refused or cut long poll is not a workflow failure: ask again (the latency then includes the retry).
        if (error instanceof ServiceError && attempt < 5) {
          resultRetries += 1;
          await new Promise((resolve) => setTimeout(resolve, 200));
          continue;
        }
        const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
        failures.push(`${error instanceof Error ? error.message : String(error)}${cause}`);
        return;
      }
    }
  };
  const pump = () => {
    while (waiting < MAX_RESULT_WAITERS && queued.length > 0) {
      const next = queued.shift();
      if (!next) break;
      waiting += 1;
      void awaitResult(next.handle, next.startedAt).finally(() => {
        waiting -= 1;
        settled += 1;
        if (settled === count) allSettled();
        pump();
      });
    }
  };

  const firstStart = performance.now();
  await runBounded(count, options.concurrency, async (index) => {
    const startedAt = performance.now();
    const handle = await client.workflow.start(noopWorkflow, {
      workflowId: `bench-noop-${runId}-${index}`,
      taskQueue,
      args: [],
    });
    queued.push({ handle, startedAt });
    pump();
  });
  const lastStart = performance.now();

  const timeoutMs = timeoutFor(options, count);
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    done,
    new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`only ${latencies.length} of ${count} no-op workflows completed within ${timeoutMs / 1000} s`)),
        timeoutMs,
      );
    }),
  ]).finally(() => clearTimeout(timer));
  if (failures.length > 0) throw new Error(`${failures.length} of ${count} no-op workflows failed, e.g. ${failures[0]}`);

  const startSeconds = (lastStart - firstStart) / 1000;
  const totalSeconds = (lastCompletion - firstStart) / 1000;
  return {
    workflows: count,
    startSeconds,
    startsPerSecond: count / startSeconds,
    totalSeconds,
    workflowsPerSecond: count / totalSeconds,
    latencyMs: summarise(latencies),
  };
}

/**
 * Waits until no workflow but the long-lived endpoint entities runs on the queue: a delivery's
 * bookkeeping (attempt row, any outcome signal) finishes after the POST, and must not overlap
 * the next measurement.
 */
async function settle(client: Client, taskQueue: string): Promise<void> {
  const query = `TaskQueue = '${taskQueue}' AND ExecutionStatus = 'Running' AND WorkflowType != 'webhookEndpointWorkflow'`;
  let running = -1;
  try {
    await waitUntil(
      async () => {
        running = (await client.workflow.count(query)).count;
        return running === 0;
      },
      { timeoutMs: SETTLE_TIMEOUT_MS, intervalMs: 250, describe: () => `${running} workflows still running after ${SETTLE_TIMEOUT_MS / 1000} s` },
    );
  } catch (error) {
    log(`could not wait for the queue to drain (${error instanceof Error ? error.message : String(error)}); pausing 5 s instead`);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
  }
}

async function deliveryStatuses(db: Database, companyId: number): Promise<string> {
  const rows = await db('webhook_deliveries as d')
    .join('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .where('e.company_id', companyId)
    .groupBy('d.status')
    .select<{ status: string; count: string }[]>('d.status', db.raw('count(*)::text as count'));
  return rows.length === 0 ? 'none' : rows.map((row) => `${row.status} ${row.count}`).join(', ');
}

/** Every delivery of the run is recorded as delivered at the first attempt, or the numbers mean little. */
async function checkDeliveryRows(db: Database, scenario: Scenario, events: number): Promise<string[]> {
  const rows = await db('webhook_deliveries as d')
    .join('webhook_endpoints as e', 'e.id', 'd.endpoint_id')
    .where('e.company_id', scenario.companyId)
    .select<{ status: string; attempts: number }[]>('d.status', 'd.attempts');
  const expected = events * scenario.endpoints;
  const good = rows.filter((row) => row.status === 'delivered' && row.attempts === 1).length;
  if (rows.length === expected && good === expected) return [];
  return [
    `E=${scenario.endpoints}: expected ${expected} deliveries delivered at the first attempt, found ${rows.length} rows ` +
      `(${good} delivered at once; by status: ${await deliveryStatuses(db, scenario.companyId)})`,
  ];
}

/** Per delivery and per event of one run (with E endpoints, one event makes E deliveries). */
function costRows(row: Row): CostRow[] {
  const { webhooks, temporalCost } = row;
  return [
    { label: `per delivery, E=${webhooks.endpoints}`, cost: temporalCost.total, units: webhooks.deliveries },
    { label: `per event, E=${webhooks.endpoints}`, cost: temporalCost.total, units: webhooks.events },
  ];
}

function renderTable(rows: Row[]): string {
  const header = ['run', 'endpoints', 'executions', 'started/s', 'completed/s', 'p50 ms', 'p99 ms', 'worker peak RSS MB', 'vs baseline'];
  const body: string[][] = [];
  for (const row of rows) {
    const { webhooks: w, baseline: b } = row;
    body.push([
      'webhooks: emit → receipt',
      String(w.endpoints),
      `${w.events} events → ${w.deliveries} deliveries`,
      fixed(w.eventsPerSecond, 0),
      fixed(w.deliveriesPerSecond, 1),
      fixed(w.latencyMs.p50, 0),
      fixed(w.latencyMs.p99, 0),
      w.workerPeakRssMb === null ? 'n/a' : fixed(w.workerPeakRssMb, 0),
      fixed(row.throughputRatio, 2),
    ]);
    body.push([
      'baseline: no-op workflow + activity',
      '—',
      `${b.workflows} workflows`,
      fixed(b.startsPerSecond, 0),
      fixed(b.workflowsPerSecond, 1),
      fixed(b.latencyMs.p50, 0),
      fixed(b.latencyMs.p99, 0),
      '—',
      '1.00',
    ]);
  }
  return markdownTable(header, body, header.map((_, column) => column >= 3));
}

runMain(main);
