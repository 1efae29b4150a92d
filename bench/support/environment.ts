import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../../admin/api-keys';
import { createCompany } from '../../admin/create-company';
import { connectDatabase, migrateToLatest } from '../../db/connection';
import { createRepositories, type Repositories } from '../../db/repositories';
import { SCOPES } from '../../domain/scopes';
import { createDatabaseIfMissing, startEmbeddedPostgres } from '../../scripts/embedded/postgres';
import { freePort } from '../../scripts/embedded/ports';
import { startTemporalDevServer } from '../../scripts/embedded/temporal-dev-server';
import { ensureTemporalCli } from '../../scripts/provision/temporal-cli';
import { writeWorkflowBundle } from '../../scripts/bundle-workflows';
import { buildParts, COMPILED_PARTS_ENV } from '../../scripts/build-parts';
import type { CleanupStack } from './cleanup';
import { createStatementStatistics, STATEMENT_STATISTICS } from './postgres-statements';

export const BENCH_DATABASE = 'invoicing_bench';
/** The company the ingestion and exports benchmarks import into (the demo invoices' customer). */
export const COMPANY_NIT = '900108281';

type Log = (line: string) => void;

export type SeededDatabase<T> = { workDir: string; databaseUrl: string; seeded: T };

/**
 * A temporary directory and a throwaway Postgres cluster in it (fsync off) on a free port, with
 * `database` created, migrated and seeded by `seed`. Each resource is registered on `cleanup`
 * as soon as it exists.
 */
export async function startSeededPostgres<T>(options: {
  cleanup: CleanupStack;
  log: Log;
  database: string;
  workDirPrefix: string;
  seed: (context: { repositories: Repositories; databaseUrl: string }) => Promise<T>;
}): Promise<SeededDatabase<T>> {
  const { cleanup, log } = options;
  const workDir = await mkdtemp(path.join(os.tmpdir(), options.workDirPrefix));
  cleanup.push('remove temporary directory', () => rm(workDir, { recursive: true, force: true }));
  const postgres = await startEmbeddedPostgres({
    dataDir: path.join(workDir, 'postgres'),
    port: await freePort(),
    throwaway: true,
    preloadLibraries: [STATEMENT_STATISTICS],
  });
  cleanup.push('stop Postgres', () => postgres.stop());
  await createDatabaseIfMissing(postgres.url(), options.database);
  await createStatementStatistics(postgres.url(options.database));
  const databaseUrl = postgres.url(options.database);
  log(`postgres on 127.0.0.1:${postgres.port} (data in ${workDir})`);

  const db = connectDatabase(databaseUrl, 2);
  let seeded: T;
  try {
    await migrateToLatest(db);
    seeded = await options.seed({ repositories: createRepositories(db), databaseUrl });
  } finally {
    await db.destroy();
  }
  return { workDir, databaseUrl, seeded };
}

/**
 * startSeededPostgres plus an in-memory Temporal dev server (no SQLite file, no UI) on a free
 * port; the Temporal CLI is fetched (or found) while Postgres starts, and the workflow bundle
 * is built once meanwhile (`workflowBundlePath`): benchmark workers load it as `npm start`'s
 * do, instead of running webpack in the measured process.
 */
export async function startPostgresAndTemporal<T>(
  options: Parameters<typeof startSeededPostgres<T>>[0],
): Promise<SeededDatabase<T> & { temporalAddress: string; temporalPid?: number; temporalMetricsUrl: string; workflowBundlePath: string }> {
  const { cleanup, log } = options;
  const cliPathPromise = ensureTemporalCli(log);
  cliPathPromise.catch(() => undefined); // awaited below; this keeps an early failure from going unhandled
  const bundleDir = await mkdtemp(path.join(os.tmpdir(), 'invoicing-bench-bundle-'));
  cleanup.push('remove the workflow bundle', () => rm(bundleDir, { recursive: true, force: true }));
  const workflowBundlePath = path.join(bundleDir, 'workflow-bundle.js');
  const bundled = writeWorkflowBundle(workflowBundlePath);
  bundled.catch(() => undefined); // awaited below
  // The API and worker run compiled, as under `npm start` (spawnChildProcess's `part`).
  const compiledDir = path.join(bundleDir, 'parts');
  const compiled = buildParts(compiledDir);
  compiled.catch(() => undefined); // awaited below
  const database = await startSeededPostgres(options);
  const metricsPort = await freePort();
  const devServer = await startTemporalDevServer({
    cliPath: await cliPathPromise,
    port: await freePort(),
    logFile: path.join(database.workDir, 'temporal-dev-server.log'),
    metricsPort,
  });
  cleanup.push('stop the Temporal dev server', () => devServer.stop());
  log(`Temporal dev server (in memory) on ${devServer.address}`);
  log(`workflow bundle: ${Math.round((await bundled) / 1024)} KiB`);
  await compiled;
  process.env[COMPILED_PARTS_ENV] = compiledDir;
  return { ...database, temporalAddress: devServer.address, temporalPid: devServer.pid, temporalMetricsUrl: `http://127.0.0.1:${metricsPort}/metrics`, workflowBundlePath };
}

export type BenchEnvironment = {
  workDir: string;
  databaseUrl: string;
  temporalAddress: string;
  workflowBundlePath: string;
  /** The Temporal dev server's pid (its CPU time, bench/support/process-cpu.ts). */
  temporalPid?: number;
  /** The dev server's Prometheus metrics (heartbeat requests, bench/support/temporal-cost.ts). */
  temporalMetricsUrl: string;
  /** `Bearer …` value of an admin key with every scope and access to all companies. */
  authorization: string;
  companyCount: number;
};

/**
 * Everything bench/api.ts and bench/webhooks.ts need, started from nothing and offline:
 * Postgres seeded with `companies` companies and an all-scopes admin key, and Temporal.
 */
export async function startBenchEnvironment(options: { cleanup: CleanupStack; log: Log; companies: number }): Promise<BenchEnvironment> {
  const { workDir, databaseUrl, temporalAddress, temporalPid, temporalMetricsUrl, workflowBundlePath, seeded } = await startPostgresAndTemporal({
    cleanup: options.cleanup,
    log: options.log,
    database: BENCH_DATABASE,
    workDirPrefix: 'invoicing-bench-',
    seed: async ({ repositories }) => {
      for (let i = 1; i <= options.companies; i += 1) {
        await createCompany(repositories, { name: `Bench Company ${i} S.A.S.`, nit: String(900_100_000 + i) });
      }
      const { fullKey } = await createApiKey(repositories, { prefix: 'inv', name: 'bench admin', scopes: [...SCOPES], role: 'admin', companyIds: null });
      options.log(`migrated and seeded ${options.companies} companies and an admin API key`);
      return `Bearer ${fullKey}`;
    },
  });
  return { workDir, databaseUrl, temporalAddress, temporalPid, temporalMetricsUrl, workflowBundlePath, authorization: seeded, companyCount: options.companies };
}

export type IngestionEnvironment = {
  workDir: string;
  databaseUrl: string;
  temporalAddress: string;
  workflowBundlePath: string;
  /** The dev server's process (its CPU time is measured per phase). */
  temporalPid?: number;
  /** The dev server's Prometheus metrics (heartbeat requests, bench/support/temporal-cost.ts). */
  temporalMetricsUrl: string;
  companyId: number;
  /** `Bearer …` of an admin key with documents:read, documents:write and webhooks:manage on that company. */
  authorization: string;
};

/**
 * bench/ingestion.ts's and bench/exports.ts's environment: Postgres with one company (NIT
 * 900108281) and its admin key, and Temporal.
 */
export async function startIngestionEnvironment(cleanup: CleanupStack, log: Log): Promise<IngestionEnvironment> {
  const { workDir, databaseUrl, temporalAddress, temporalPid, temporalMetricsUrl, workflowBundlePath, seeded } = await startPostgresAndTemporal({
    cleanup,
    log,
    database: 'invoicing_bench_ingestion',
    workDirPrefix: 'invoicing-bench-ingestion-',
    seed: async ({ repositories }) => {
      const company = await createCompany(repositories, { name: 'Ópticas GMO Bench S.A.S.', nit: COMPANY_NIT });
      const { fullKey } = await createApiKey(repositories, {
        prefix: 'inv',
        name: 'bench ingestion',
        scopes: ['documents:read', 'documents:write', 'webhooks:manage'],
        role: 'admin',
        companyIds: [company.id],
      });
      log(`migrated; company ${company.id} (NIT ${COMPANY_NIT}) and its admin key created`);
      return { companyId: company.id, authorization: `Bearer ${fullKey}` };
    },
  });
  return { workDir, databaseUrl, temporalAddress, temporalPid, temporalMetricsUrl, workflowBundlePath, ...seeded };
}

/**
 * Free ports for the metrics endpoints of the parts a benchmark spawns: metrics stay on (their
 * cost is part of what is measured), and two benchmarks, or a benchmark beside `npm start`,
 * do not collide on the default ports.
 */
export async function metricsPortsEnv(): Promise<Record<string, string>> {
  const names = ['METRICS_PORT', 'WORKER_METRICS_PORT', 'WORKER_SDK_METRICS_PORT', 'INTAKE_METRICS_PORT'];
  const ports = await Promise.all(names.map(() => freePort()));
  return Object.fromEntries(names.map((name, index) => [name, String(ports[index])]));
}

/**
 * The environment the real API and worker (child processes) share in the ingestion-style
 * benchmarks: this Postgres and Temporal, a fresh task queue and secrets key, blobs and data in
 * the work directory, the API on `port`, loopback webhook targets allowed, no rate limit, no mail.
 */
export async function apiAndWorkerEnv(
  environment: { workDir: string; databaseUrl: string; temporalAddress: string; workflowBundlePath?: string },
  options: { port: number; taskQueuePrefix: string; extra?: Record<string, string> },
): Promise<Record<string, string>> {
  return {
    ...(await metricsPortsEnv()),
    NODE_ENV: 'development',
    DATA_DIR: path.join(environment.workDir, 'data'),
    DATABASE_URL: environment.databaseUrl,
    TEMPORAL_ADDRESS: environment.temporalAddress,
    TEMPORAL_TASK_QUEUE: `${options.taskQueuePrefix}-${randomUUID()}`,
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    BLOB_DIR: path.join(environment.workDir, 'blobs'),
    PORT: String(options.port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_SECOND: '0',
    SMTP_PORT: '0',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    ...(environment.workflowBundlePath ? { WORKFLOW_BUNDLE_PATH: environment.workflowBundlePath } : {}),
    ...options.extra,
  };
}
