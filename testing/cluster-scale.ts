import { spawn, type ChildProcess } from 'node:child_process';
import { partNodeArguments, type PartName } from '../scripts/build-parts';
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { createApiKey } from '../admin/api-keys';
import { createCompany } from '../admin/create-company';
import { demoInvoiceXml } from '../admin/demo-documents';
import { emitEvent } from '../api/publish-event';
import { connectDatabase, migrateToLatest, type Database } from '../db/connection';
import { createRepositories } from '../db/repositories';
import { createDatabaseIfMissing } from '../scripts/embedded/postgres';
import { freePort, waitForPort } from '../scripts/embedded/ports';
import { startTemporalCluster, type TemporalCluster } from '../scripts/embedded/temporal-cluster';
import { ensureTemporalServer, ensureTemporalSqlTool, temporalPostgresSchemaDir } from '../scripts/provision/temporal-server';

/**
 * The scale scenario of issue #13 on the production engine, shared by the suite's short scale
 * test (test/e2e/cluster-scale.test.ts) and the long benchmark (bench/cluster.ts): the Temporal
 * server on Postgres, the real API and worker processes (api/main.ts, worker/main.ts), webhook
 * deliveries and file ingestion measured end to end at a loopback receiver with 1 then 2
 * workers, and a worker killed with SIGKILL in the middle of a burst.
 */

const projectRoot = path.resolve(__dirname, '..');
const COMPANY_NIT = '900108281';
const SUPPLIER_NIT = '800197268';

type Log = (line: string) => void;

export type ScaleCluster = {
  apiUrl: string;
  temporalAddress: string;
  db: Database;
  companyId: number;
  receiver: EventReceiver;
  /** A client of the cluster's `default` namespace, and the task queue the API and workers use. */
  client: Client;
  taskQueue: string;
  /**
   * Postgres's own counters (pg_stat_database) of the app's database and Temporal's two:
   * committed transactions and rows written (inserted + updated + deleted) so far.
   */
  postgresWrites(): Promise<PostgresWrites>;
  /** The Temporal server's Prometheus metrics (the benchmark counts heartbeats there: they are in no history). */
  temporalMetricsUrl: string;
  /** CPU seconds (user + system, /proc) used so far by the live workers, the API and the Temporal server. */
  cpuSeconds(): Promise<CpuSeconds>;
  /** Emits `count` contact.created events as the API does; their ids. */
  emit(count: number): Promise<string[]>;
  /** Uploads `count` new invoice XMLs through the API; their file ids. */
  upload(count: number): Promise<number[]>;
  /** A worker process, resolved once it polls the task queue. */
  startWorker(): Promise<ChildProcess>;
  stop(): Promise<void>;
};

export type CpuSeconds = { workers: number; api: number; temporalServer: number };

export type PostgresWrites = Record<'app' | 'temporal' | 'visibility', { commits: number; rows: number }>;

export type ScaleClusterOptions = {
  /** Superuser URL of the Postgres that holds the app's and Temporal's databases. */
  postgresAdminUrl: string;
  /** Prefix of the three databases created there. */
  databasePrefix: string;
  /** Config and logs of the Temporal server. */
  workDir: string;
  historyShards: number;
  /** A prebuilt workflow bundle for the workers (scripts/bundle-workflows.ts), or each bundles itself. */
  workflowBundlePath?: string;
  log: Log;
};

export async function startScaleCluster(options: ScaleClusterOptions): Promise<ScaleCluster> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const step of stops.reverse()) await step().catch((error: Error) => options.log(`while stopping: ${error.message}`));
  };
  try {
    const admin = new URL(options.postgresAdminUrl);
    const [serverPath, sqlToolPath, schemaDir] = await Promise.all([ensureTemporalServer(options.log), ensureTemporalSqlTool(options.log), temporalPostgresSchemaDir()]);
    const started = performance.now();
    const metricsPort = await freePort();
    const cluster: TemporalCluster = await startTemporalCluster({
      serverPath,
      sqlToolPath,
      schemaDir,
      postgres: { host: admin.hostname, port: Number(admin.port), user: decodeURIComponent(admin.username), password: decodeURIComponent(admin.password) },
      databases: { default: `${options.databasePrefix}_temporal`, visibility: `${options.databasePrefix}_temporal_visibility` },
      dir: options.workDir,
      frontendPort: await freePort(),
      historyShards: options.historyShards,
      metricsPort,
    });
    stops.push(() => cluster.stop());
    options.log(`Temporal server on Postgres (${options.historyShards} shards) ready at ${cluster.address} in ${((performance.now() - started) / 1000).toFixed(1)} s`);

    const appDatabase = `${options.databasePrefix}_app`;
    await createDatabaseIfMissing(options.postgresAdminUrl, appDatabase);
    const databaseUrl = Object.assign(new URL(options.postgresAdminUrl), { pathname: `/${appDatabase}` }).toString();
    const db = connectDatabase(databaseUrl, 2);
    stops.push(() => db.destroy());
    await migrateToLatest(db);
    const repositories = createRepositories(db);
    const company = await createCompany(repositories, { name: 'Escala S.A.S.', nit: COMPANY_NIT });
    const { fullKey } = await createApiKey(repositories, { prefix: 'inv', name: 'scale', scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin', companyIds: [company.id] });
    const authorization = `Bearer ${fullKey}`;

    const receiver = await startEventReceiver();
    stops.push(() => receiver.close());

    const taskQueue = `scale-${randomUUID()}`;
    const port = await freePort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      NODE_ENV: 'development',
      DATABASE_URL: databaseUrl,
      TEMPORAL_ADDRESS: cluster.address,
      TEMPORAL_TASK_QUEUE: taskQueue,
      SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      BLOB_STORE: 'filesystem',
      BLOB_DIR: path.join(options.workDir, 'blobs'),
      DATA_DIR: path.join(options.workDir, 'data'),
      HOST: '127.0.0.1',
      PORT: String(port),
      LOG_LEVEL: 'warn',
      RATE_LIMIT_PER_SECOND: '0',
      SMTP_PORT: '0',
      // Every replica shares this environment: a fixed metrics port would let only the first bind.
      METRICS_PORT: '0',
      WORKER_METRICS_PORT: '0',
      WORKER_SDK_METRICS_PORT: '0',
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      ...(options.workflowBundlePath ? { WORKFLOW_BUNDLE_PATH: options.workflowBundlePath } : {}),
    };
    const children: ChildProcess[] = [];
    stops.push(async () => {
      for (const child of children) await killed(child, 'SIGTERM');
    });
    const spawnPart = (part: PartName) => {
      const child = spawn(process.execPath, partNodeArguments(part), { cwd: projectRoot, env, stdio: ['ignore', 'ignore', 'inherit'] });
      children.push(child);
      return child;
    };
    const apiProcess = spawnPart('api');
    await waitForPort(port, 120_000);
    const apiUrl = `http://127.0.0.1:${port}`;
    const api = apiClient(apiUrl, authorization, company.id);
    await api.post('/webhooks', { url: `${receiver.url}/deliveries/1`, events: ['contact.created'] });
    await api.post('/webhooks', { url: `${receiver.url}/deliveries/2`, events: ['contact.created'] });
    await api.post('/webhooks', { url: `${receiver.url}/imports`, events: ['document.imported', 'document.import_failed'] });

    const connection = await Connection.connect({ address: cluster.address });
    stops.push(() => connection.close());
    const client = new Client({ connection, namespace: 'default' });
    return {
      apiUrl,
      temporalAddress: cluster.address,
      db,
      companyId: company.id,
      receiver,
      client,
      taskQueue,
      temporalMetricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
      async postgresWrites() {
        const names = { app: appDatabase, temporal: `${options.databasePrefix}_temporal`, visibility: `${options.databasePrefix}_temporal_visibility` };
        // Statistics a backend has not flushed yet (up to ~1 s old) are not counted: read after a pause.
        const rows = await db
          .select<{ datname: string; commits: string; rows: string }[]>('datname', db.raw('xact_commit as commits'), db.raw('tup_inserted + tup_updated + tup_deleted as rows'))
          .from('pg_stat_database')
          .whereIn('datname', Object.values(names));
        const of = (name: string) => {
          const row = rows.find((candidate) => candidate.datname === name);
          return { commits: Number(row?.commits ?? 0), rows: Number(row?.rows ?? 0) };
        };
        return { app: of(names.app), temporal: of(names.temporal), visibility: of(names.visibility) };
      },
      async cpuSeconds() {
        const workers = children.filter((child) => child !== apiProcess);
        const sum = async (pids: (number | undefined)[]) => (await Promise.all(pids.map(cpuSecondsOf))).reduce((total, seconds) => total + seconds, 0);
        return { workers: await sum(workers.map((child) => child.pid)), api: await cpuSecondsOf(apiProcess.pid), temporalServer: await cpuSecondsOf(cluster.pid) };
      },
      async startWorker() {
        const child = spawnPart('worker');
        await waitForPoller(client, taskQueue, child, 180_000);
        return child;
      },
      stop,
      emit: (count) => emitEvents({ repositories, temporal: { client, taskQueue } }, company.id, count),
      upload: (count) => uploadInvoices(api, count),
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A burst: its units, how long from the first start to the last arrival, and that window in wall-clock time (for the Temporal cost of the burst). */
export type Throughput = { units: number; seconds: number; perSecond: number; window: { from: Date; to: Date } };

function throughput(units: number, startedAt: number, startedWall: Date, lastArrival: number): Throughput {
  const seconds = (lastArrival - startedAt) / 1000;
  return { units, seconds, perSecond: units / seconds, window: { from: startedWall, to: new Date(startedWall.getTime() + seconds * 1000 + 2_000) } };
}

/** `events` contact.created events to 2 endpoints: every delivery (event × endpoint) at the receiver. */
export async function deliveryBurst(cluster: ScaleCluster, events: number, timeoutMs: number): Promise<Throughput> {
  const [started, startedWall] = [performance.now(), new Date()];
  const ids = await cluster.emit(events);
  await cluster.receiver.waitForDeliveries(ids, timeoutMs);
  return throughput(ids.length * 2, started, startedWall, cluster.receiver.lastArrivalOf(ids.flatMap((id) => [`1:${id}`, `2:${id}`])));
}

/** `files` distinct invoice XMLs uploaded through the API (8 in flight): upload → document.imported. */
export async function ingestionBurst(cluster: ScaleCluster, files: number, timeoutMs: number): Promise<Throughput> {
  const [started, startedWall] = [performance.now(), new Date()];
  const ids = await cluster.upload(files);
  await cluster.receiver.waitForImports(ids, timeoutMs);
  return throughput(ids.length, started, startedWall, cluster.receiver.lastArrivalOf(ids.map((id) => `imported:${id}`)));
}

export type KillOutcome = {
  deliveries: { accepted: number; received: number; lost: number };
  files: { accepted: number; imported: number; lost: number; documents: number; duplicateDocuments: number };
  receivedBeforeKill: number;
};

/**
 * With workers running: `events` deliveries and `files` uploads at once, SIGKILL `victim` once a
 * quarter of them has arrived, and let the remaining worker(s) finish. Lost = accepted units
 * that never arrived; duplicates = files imported into more than one document.
 */
export async function killMidBurst(cluster: ScaleCluster, victim: ChildProcess, counts: { events: number; files: number }, timeoutMs: number): Promise<KillOutcome> {
  // The kill comes while events are still being emitted and files uploaded: a quarter of the
  // burst's arrivals (event × 2 endpoints, one document.imported per file) is the signal.
  const expected = counts.events * 2 + counts.files;
  const arrivalsBefore = cluster.receiver.arrivals();
  const accepted = Promise.all([cluster.emit(counts.events), cluster.upload(counts.files)]);
  const deadline = Date.now() + timeoutMs;
  while (cluster.receiver.arrivals() - arrivalsBefore < expected / 4 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  const receivedBeforeKill = cluster.receiver.arrivals() - arrivalsBefore;
  await killed(victim, 'SIGKILL');
  const [eventIds, fileIds] = await accepted;
  await Promise.all([cluster.receiver.waitForDeliveries(eventIds, timeoutMs), cluster.receiver.waitForImports(fileIds, timeoutMs)]).catch(() => undefined);

  const deliveriesReceived = eventIds.flatMap((id) => [`1:${id}`, `2:${id}`]).filter((key) => cluster.receiver.has(key)).length;
  const imported = fileIds.filter((id) => cluster.receiver.has(`imported:${id}`)).length;
  const perFile = await cluster.db('documents')
    .where({ company_id: cluster.companyId })
    .whereIn('imported_file_id', fileIds)
    .groupBy('imported_file_id')
    .select<{ imported_file_id: number; count: string }[]>('imported_file_id', cluster.db.raw('count(*) as count'));
  return {
    deliveries: { accepted: eventIds.length * 2, received: deliveriesReceived, lost: eventIds.length * 2 - deliveriesReceived },
    files: {
      accepted: fileIds.length,
      imported,
      lost: fileIds.length - imported,
      documents: perFile.reduce((sum, row) => sum + Number(row.count), 0),
      duplicateDocuments: perFile.filter((row) => Number(row.count) > 1).length,
    },
    receivedBeforeKill,
  };
}

/** As the API emits events (api/publish-event.ts): the event and its deliveries recorded, a delivery workflow started per endpoint. */
async function emitEvents(deps: Parameters<typeof emitEvent>[0], companyId: number, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push((await emitEvent(deps, { companyId, type: 'contact.created', data: { id: i } })).id);
  return ids;
}

type ApiClient = { post(pathUnderCompany: string, body: unknown): Promise<Record<string, unknown>>; upload(name: string, bytes: Buffer): Promise<number> };

function apiClient(apiUrl: string, authorization: string, companyId: number): ApiClient {
  const base = `${apiUrl}/v1/companies/${companyId}`;
  return {
    async post(pathUnderCompany, body) {
      const response = await fetch(`${base}${pathUnderCompany}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const text = await response.text();
      if (!response.ok) throw new Error(`POST ${pathUnderCompany} answered ${response.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as Record<string, unknown>;
    },
    async upload(name, bytes) {
      const form = new FormData();
      form.append('file', new Blob([new Uint8Array(bytes)], { type: 'application/xml' }), name);
      const response = await fetch(`${base}/files`, { method: 'POST', headers: { authorization }, body: form });
      const text = await response.text();
      if (response.status !== 202) throw new Error(`upload of ${name} answered ${response.status}: ${text.slice(0, 300)}`);
      return (JSON.parse(text) as { id: number }).id;
    },
  };
}

let invoiceCounter = 0;
/** `count` invoices never uploaded before (own number and CUFE), 8 uploads in flight; their file ids. */
async function uploadInvoices(api: ApiClient, count: number): Promise<number[]> {
  const files = Array.from({ length: count }, () => {
    invoiceCounter += 1;
    const number = `SCALE${process.pid}${String(invoiceCounter).padStart(5, '0')}`;
    const cufe = createHash('sha384').update(number).digest('hex');
    return { name: `${number}.xml`, bytes: demoInvoiceXml(number, cufe, SUPPLIER_NIT, COMPANY_NIT) };
  });
  const ids: number[] = new Array(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(8, count) }, async () => {
      while (next < files.length) {
        const index = next++;
        ids[index] = await api.upload(files[index]!.name, files[index]!.bytes);
      }
    }),
  );
  return ids;
}

/** Resolves once a poller of `child` (the SDK's default identity is `pid@host`) polls the workflow side of the queue. */
async function waitForPoller(client: Client, taskQueue: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`worker ${child.pid} exited before it polled`);
    const described = await client.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: taskQueue }, taskQueueType: 1 });
    if ((described.pollers ?? []).some((poller) => poller.identity?.startsWith(`${child.pid}@`))) return;
    if (Date.now() > deadline) throw new Error(`worker ${child.pid} did not poll ${taskQueue} within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** utime + stime of a live process (fields 14 and 15 of /proc/PID/stat, in clock ticks of 1/100 s); 0 once it is gone. */
async function cpuSecondsOf(pid: number | undefined): Promise<number> {
  if (!pid) return 0;
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

async function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill(signal);
  const killer = setTimeout(() => child.kill('SIGKILL'), 20_000);
  await exited;
  clearTimeout(killer);
}

export type EventReceiver = {
  url: string;
  /** `1:<event id>` / `2:<event id>` (delivery to endpoint 1 or 2), `imported:<file id>`. */
  has(key: string): boolean;
  /** performance.now() of the latest first arrival among `keys`. */
  lastArrivalOf(keys: string[]): number;
  /** Arrivals of a key that had already arrived (webhooks are at least once). */
  duplicates(): number;
  /** Distinct keys arrived so far. */
  arrivals(): number;
  waitForDeliveries(eventIds: string[], timeoutMs: number): Promise<void>;
  waitForImports(fileIds: number[], timeoutMs: number): Promise<void>;
  close(): Promise<void>;
};

/** A loopback webhook receiver: first arrival time per delivery, deduplicated by event (webhooks are at-least-once). */
async function startEventReceiver(): Promise<EventReceiver> {
  const firstArrival = new Map<string, number>();
  let duplicates = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; data: { id: number } };
      const endpoint = request.url?.split('/').pop();
      const key = request.url?.startsWith('/imports') ? `${body.type === 'document.imported' ? 'imported' : 'failed'}:${body.data.id}` : `${endpoint}:${String(request.headers['webhook-id'])}`;
      if (firstArrival.has(key)) duplicates += 1;
      else firstArrival.set(key, at);
      response.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const until = async (keys: string[], timeoutMs: number, what: string) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const failed = keys.find((key) => firstArrival.has(key.replace(/^imported:/, 'failed:')) && key.startsWith('imported:'));
      if (failed) throw new Error(`${failed.replace('imported:', 'file ')} failed to import`);
      const missing = keys.filter((key) => !firstArrival.has(key)).length;
      if (missing === 0) return;
      if (Date.now() > deadline) throw new Error(`${missing} of ${keys.length} ${what} missing after ${timeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    has: (key) => firstArrival.has(key),
    lastArrivalOf: (keys) => Math.max(...keys.map((key) => firstArrival.get(key) ?? Number.NaN)),
    duplicates: () => duplicates,
    arrivals: () => firstArrival.size,
    waitForDeliveries: (eventIds, timeoutMs) => until(eventIds.flatMap((id) => [`1:${id}`, `2:${id}`]), timeoutMs, 'deliveries'),
    waitForImports: (fileIds, timeoutMs) => until(fileIds.map((id) => `imported:${id}`), timeoutMs, 'document.imported events'),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
