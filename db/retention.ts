import type { Database } from './connection';

/**
 * Deletes a table's rows created before `now() - age` (a Postgres interval such as '30 days'), in
 * batches of `batchSize` so that a large backlog never holds one long transaction and its locks.
 * The table needs an index on created_at. Returns how many rows went.
 */
export async function deleteOlderThan(db: Database, table: string, age: string, batchSize: number): Promise<number> {
  let total = 0;
  for (;;) {
    const deleted = await db.raw<{ rowCount: number }>(
      `DELETE FROM ?? WHERE id IN (SELECT id FROM ?? WHERE created_at < now() - ?::interval LIMIT ?)`,
      [table, table, age, batchSize],
    );
    total += deleted.rowCount;
    if (deleted.rowCount < batchSize) return total;
  }
}
