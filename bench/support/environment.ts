import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../../admin/api-keys';
import { createCompany } from '../../admin/create-company';
import { connectDatabase, migrateToLatest } from '../../db/connection';
import { createRepositories } from '../../db/repositories';
import { SCOPES } from '../../domain/scopes';
import { createDatabaseIfMissing, startEmbeddedPostgres } from '../../scripts/embedded/postgres';
import { freePort } from '../../scripts/embedded/ports';
import { startTemporalDevServer } from '../../scripts/embedded/temporal-dev-server';
import { ensureTemporalCli } from '../../scripts/provision/temporal-cli';
import type { CleanupStack } from './cleanup';

export const BENCH_DATABASE = 'invoicing_bench';

export type BenchEnvironment = {
  workDir: string;
  databaseUrl: string;
  temporalAddress: string;
  /** `Bearer …` value of an admin key with every scope and access to all companies. */
  authorization: string;
  companyCount: number;
};

/**
 * Everything a benchmark needs, started from nothing and offline: a throwaway Postgres in a
 * temporary directory, migrated and seeded, and an in-memory Temporal dev server. Every
 * resource is registered on `cleanup` as soon as it exists.
 */
export async function startBenchEnvironment(options: {
  cleanup: CleanupStack;
  log: (line: string) => void;
  companies: number;
}): Promise<BenchEnvironment> {
  const { cleanup, log } = options;
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'invoicing-bench-'));
  cleanup.push('remove temporary directory', () => rm(workDir, { recursive: true, force: true }));

  const cliPathPromise = ensureTemporalCli(log);
  cliPathPromise.catch(() => undefined); // awaited below; this keeps an early failure from going unhandled

  const postgres = await startEmbeddedPostgres({
    dataDir: path.join(workDir, 'postgres'),
    port: await freePort(),
    throwaway: true,
  });
  cleanup.push('stop Postgres', () => postgres.stop());
  await createDatabaseIfMissing(postgres.url(), BENCH_DATABASE);
  const databaseUrl = postgres.url(BENCH_DATABASE);
  log(`postgres on 127.0.0.1:${postgres.port}`);

  const db = connectDatabase(databaseUrl, 2);
  let authorization: string;
  try {
    await migrateToLatest(db);
    const repositories = createRepositories(db);
    for (let i = 1; i <= options.companies; i += 1) {
      await createCompany(repositories, { name: `Bench Company ${i} S.A.S.`, nit: String(900_100_000 + i) });
    }
    const { fullKey } = await createApiKey(repositories, {
      prefix: 'inv',
      name: 'bench admin',
      scopes: [...SCOPES],
      role: 'admin',
      companyIds: null,
    });
    authorization = `Bearer ${fullKey}`;
  } finally {
    await db.destroy();
  }
  log(`migrated and seeded ${options.companies} companies and an admin API key`);

  const devServer = await startTemporalDevServer({
    cliPath: await cliPathPromise,
    port: await freePort(),
    logFile: path.join(workDir, 'temporal-dev-server.log'),
  });
  cleanup.push('stop the Temporal dev server', () => devServer.stop());
  log(`Temporal dev server on ${devServer.address}`);

  return { workDir, databaseUrl, temporalAddress: devServer.address, authorization, companyCount: options.companies };
}
