import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '../../admin/api-keys';
import { createCompany } from '../../admin/create-company';
import { connectDatabase, migrateToLatest } from '../../db/connection';
import { createRepositories } from '../../db/repositories';
import { createDatabaseIfMissing, startEmbeddedPostgres } from '../../scripts/embedded/postgres';
import { freePort } from '../../scripts/embedded/ports';
import { startTemporalDevServer } from '../../scripts/embedded/temporal-dev-server';
import { ensureTemporalCli } from '../../scripts/provision/temporal-cli';
import type { Cleanup } from './cleanup';
import { COMPANY_NIT } from './inputs';

const DATABASE = 'invoicing_bench_ingestion';

export type IngestionEnvironment = {
  workDir: string;
  databaseUrl: string;
  temporalAddress: string;
  companyId: number;
  /** `Bearer …` of an admin key with documents:read, documents:write and webhooks:manage on that company. */
  authorization: string;
};

/**
 * From nothing, offline: a temporary directory, a throwaway Postgres cluster in it (fsync off)
 * on a free port, migrated, with one company (NIT 900108281) and its admin key, and an
 * in-memory Temporal dev server (no SQLite file, no UI) on a free port. Each resource is
 * registered on `cleanup` as soon as it exists.
 */
export async function startIngestionEnvironment(cleanup: Cleanup, log: (line: string) => void): Promise<IngestionEnvironment> {
  const workDir = await mkdtemp(path.join(os.tmpdir(), 'invoicing-bench-ingestion-'));
  cleanup.push('remove the temporary directory', () => rm(workDir, { recursive: true, force: true }));

  const cliPath = ensureTemporalCli(log);
  cliPath.catch(() => undefined); // awaited below; keeps an early failure from being unhandled

  const postgres = await startEmbeddedPostgres({ dataDir: path.join(workDir, 'postgres'), port: await freePort(), throwaway: true });
  cleanup.push('stop Postgres', () => postgres.stop());
  await createDatabaseIfMissing(postgres.url(), DATABASE);
  const databaseUrl = postgres.url(DATABASE);
  log(`Postgres on 127.0.0.1:${postgres.port}`);

  const db = connectDatabase(databaseUrl, 2);
  let companyId: number;
  let authorization: string;
  try {
    await migrateToLatest(db);
    const repositories = createRepositories(db);
    const company = await createCompany(repositories, { name: 'Ópticas GMO Bench S.A.S.', nit: COMPANY_NIT });
    const { fullKey } = await createApiKey(repositories, {
      prefix: 'inv',
      name: 'bench ingestion',
      scopes: ['documents:read', 'documents:write', 'webhooks:manage'],
      role: 'admin',
      companyIds: [company.id],
    });
    companyId = company.id;
    authorization = `Bearer ${fullKey}`;
  } finally {
    await db.destroy();
  }
  log(`migrated; company ${companyId} (NIT ${COMPANY_NIT}) and its admin key created`);

  const devServer = await startTemporalDevServer({
    cliPath: await cliPath,
    port: await freePort(),
    logFile: path.join(workDir, 'temporal-dev-server.log'),
  });
  cleanup.push('stop the Temporal dev server', () => devServer.stop());
  log(`Temporal dev server (in memory) on ${devServer.address}`);

  return { workDir, databaseUrl, temporalAddress: devServer.address, companyId, authorization };
}
