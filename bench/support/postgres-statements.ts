import { connectDatabase, type Database } from '../../db/connection';

/** The Postgres module that counts every statement the server runs (loaded at the benchmarks' cluster start). */
export const STATEMENT_STATISTICS = 'pg_stat_statements';

/** Makes the statement counts readable in `databaseUrl`'s database (a superuser's URL). */
export async function createStatementStatistics(databaseUrl: string): Promise<void> {
  const db = connectDatabase(databaseUrl, 1);
  try {
    await db.raw(`CREATE EXTENSION IF NOT EXISTS ${STATEMENT_STATISTICS}`);
  } finally {
    await db.destroy();
  }
}

/**
 * Statements the server has run in this database so far, every client's, BEGIN and COMMIT
 * included (each is a round trip): read before and after a phase, the difference is what the
 * phase cost Postgres, exactly, whatever else loads the machine. The benchmark's own reads of
 * the count are left out.
 */
export async function statementsRun(db: Database): Promise<number> {
  const result = await db.raw<{ rows: { calls: string }[] }>(
    `SELECT coalesce(sum(s.calls), 0) AS calls
       FROM ${STATEMENT_STATISTICS} s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname = current_database() AND s.query NOT LIKE '%${STATEMENT_STATISTICS}%'`,
  );
  return Number(result.rows[0]?.calls ?? 0);
}
