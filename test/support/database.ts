import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connectDatabase, type Database } from '../../db/connection';
import { createRepositories, type Repositories } from '../../db/repositories';

export type TestDatabase = { db: Database; url: string; repositories: Repositories; drop(): Promise<void> };

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the suite with "npm test", which starts the test services.`);
  return value;
}

/** A fresh database cloned from the migrated template that `npm test` prepared. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = requiredEnv('TEST_PG_ADMIN_URL');
  const template = requiredEnv('TEST_PG_TEMPLATE');
  const name = `test_${randomBytes(6).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name} TEMPLATE ${template}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = connectDatabase(url.toString(), 10);
  return {
    db,
    url: url.toString(),
    repositories: createRepositories(db),
    async drop() {
      await db.destroy();
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    },
  };
}

async function adminQuery(adminUrl: string, sql: string): Promise<void> {
  // CREATE DATABASE ... TEMPLATE fails while another session uses the template; retry briefly.
  for (let attempt = 1; ; attempt += 1) {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
      return;
    } catch (error) {
      if (attempt >= 20 || !/being accessed by other users/.test((error as Error).message)) throw error;
    } finally {
      await client.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

export function testTemporalAddress(): string {
  return requiredEnv('TEST_TEMPORAL_ADDRESS');
}

export function timeSkippingServerPath(): string {
  return requiredEnv('TEST_TIME_SKIPPING_SERVER');
}
