import path from 'node:path';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { watchDatabasePool } from '../config/pool-metrics';
import { PreparingPostgresClient } from './prepared-statement';

// Postgres returns int8 (bigserial ids, counts) as strings to protect precision beyond 2^53.
// Our ids and counters stay far below that, and the API contract types them as integers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number.parseInt(value, 10));
// numeric stays a string: money is never a float (see docs/decisions/0003-money-as-numeric.md).
// date stays 'YYYY-MM-DD' text instead of becoming a local-midnight Date.
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

export const migrationsDirectory = path.join(__dirname, 'migrations');

export type Database = Knex;

/**
 * acquireTimeoutMs: how long a query waits for a pooled connection (knex's default is 60 s).
 * The API uses a short one so that, with Postgres down, requests fail fast with 503
 * service_unavailable instead of piling up (api/errors.ts).
 */
export function connectDatabase(connectionString: string, poolMax = 10, options: { acquireTimeoutMs?: number } = {}): Database {
  const db = knex({
    // knex's pg client, plus the statements marked PREPARED run as prepared statements.
    client: PreparingPostgresClient,
    connection: options.acquireTimeoutMs ? { connectionString, connectionTimeoutMillis: options.acquireTimeoutMs } : connectionString,
    pool: { min: 0, max: poolMax },
    ...(options.acquireTimeoutMs ? { acquireConnectionTimeout: options.acquireTimeoutMs } : {}),
    migrations: { directory: migrationsDirectory, loadExtensions: ['.ts'], tableName: 'knex_migrations' },
  });
  watchDatabasePool(db);
  return db;
}

export async function migrateToLatest(db: Database): Promise<string[]> {
  const [, applied] = (await db.migrate.latest()) as [number, string[]];
  return applied;
}
