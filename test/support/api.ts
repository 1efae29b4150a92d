import { spawn, type ChildProcess } from 'node:child_process';
import { partNodeArguments } from '../../scripts/build-parts';
import { randomBytes, randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import pino, { type Logger } from 'pino';
import { loadConfig, type AppConfig } from '../../config';
import { tracingClientInterceptors, type Tracing } from '../../config/tracing';
import { createHttpServer, httpServerTimeouts } from '../../api/http-server';
import { createApp } from '../../api/server';
import { buildApiDependencies, type ApiDependencies } from '../../api/app-context';
import { createApiKey } from '../../admin/api-keys';
import { createCompany } from '../../admin/create-company';
import type { Scope } from '../../domain/scopes';
import { createTestDatabase, testTemporalAddress, type TestDatabase } from './database';
import { connectDatabase } from '../../db/connection';
import { sharedWorkflowBundle } from './workflow-bundle';

export type TestApi = {
  url: string;
  dependencies: ApiDependencies;
  database: TestDatabase;
  config: AppConfig;
  temporal: { connection: Connection; client: Client };
  routes: { method: string; path: string }[];
  close(): Promise<void>;
};

/**
 * The real Koa app over a fresh database and the suite's Temporal dev server, on a loopback port;
 * with `tracing`, its Temporal client is traced as api/start-api.ts makes it.
 */
export async function startTestApi(
  env: Record<string, string> = {},
  options: {
    tracing?: Tracing;
    logger?: Logger;
    /** Where the API reaches its database, given the test database's URL (a relay in front of it); the test's own `database` connects directly. */
    databaseRoute?: (url: string) => Promise<string>;
  } = {},
): Promise<TestApi> {
  const config = loadConfig({
    ...process.env,
    RATE_LIMIT_PER_SECOND: '0',
    LOG_LEVEL: 'silent',
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    BLOB_DIR: path.join(os.tmpdir(), `invoicing-test-blobs-${randomUUID()}`),
    TEMPORAL_TASK_QUEUE: `test-${randomUUID()}`,
    ...env,
  });
  const database = await createTestDatabase();
  const connection = await Connection.connect({ address: testTemporalAddress() });
  const client = new Client({ connection, namespace: config.temporal.namespace, interceptors: tracingClientInterceptors(options.tracing) });
  const logger = options.logger ?? pino({ level: 'silent' });
  let url = '';
  const routedDb = options.databaseRoute ? connectDatabase(await options.databaseRoute(database.url), 10) : null;
  const dependencies = buildApiDependencies(config, routedDb ?? database.db, { connection, client }, logger, () => url);
  const { app, routes } = createApp(dependencies);
  const server = createHttpServer(app, logger, httpServerTimeouts(config.http.timeouts));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  url = `http://127.0.0.1:${port}`;
  return {
    url,
    dependencies,
    database,
    config,
    temporal: { connection, client },
    routes,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await connection.close();
      await routedDb?.destroy();
      await database.drop();
    },
  };
}

/** A logger that keeps its lines, parsed (startTestApi's `logger`): what operators are told. */
export function capturingLogger(): { logger: Logger; lines: Record<string, any>[] } {
  const lines: Record<string, any>[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

export async function seedCompany(database: TestDatabase, name = 'Opticas GMO Colombia S.A.S.', nit = '900108281') {
  return createCompany(database.repositories, { name, nit });
}

export async function seedKey(
  database: TestDatabase,
  options: { scopes?: Scope[]; role?: 'admin' | 'member'; companyIds?: number[] | null; prefix?: string } = {},
) {
  const created = await createApiKey(database.repositories, {
    prefix: options.prefix ?? 'inv',
    scopes: options.scopes ?? [],
    role: options.role ?? 'member',
    companyIds: options.companyIds ?? null,
  });
  return { id: created.record.id, key: created.fullKey };
}

export function bearer(key: string) {
  return { Authorization: `Bearer ${key}` };
}

/** A small JSON client of the API at apiUrl with one key: the status and the parsed body. */
export function jsonClient(apiUrl: string, key: string) {
  return async function call(method: string, path: string, body?: unknown) {
    const response = await fetch(`${apiUrl}${path}`, {
      method,
      headers: { ...bearer(key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, any>) : null };
  };
}

/** The environment that points a separate process (worker, CLI) at this test API's services. */
export function serviceEnvironment(api: TestApi, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: api.database.url,
    TEMPORAL_ADDRESS: testTemporalAddress(),
    TEMPORAL_TASK_QUEUE: api.config.temporal.taskQueue,
    SECRETS_ENCRYPTION_KEY: api.config.secretsEncryptionKey,
    BLOB_DIR: api.config.blobStore.driver === 'filesystem' ? api.config.blobStore.directory : '',
    LOG_LEVEL: 'warn',
    // worker/main.ts loads the bundle `npm test` built instead of running webpack.
    ...(sharedWorkflowBundle ? { WORKFLOW_BUNDLE_PATH: sharedWorkflowBundle } : {}),
    ...extra,
  };
}

/**
 * The real worker as a child process, for tests that kill it with SIGKILL or measure it: compiled
 * as under `npm start` when `npm test` built the parts (COMPILED_PARTS_DIR), else `worker/main.ts` through tsx.
 */
export function spawnWorkerProcess(api: TestApi, extra: Record<string, string> = {}): ChildProcess {
  const root = path.resolve(__dirname, '../..');
  return spawn(process.execPath, partNodeArguments('worker'), {
    cwd: root,
    env: serviceEnvironment(api, extra),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
