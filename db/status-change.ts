import type { Knex } from 'knex';

/**
 * Updates one row (by id, optionally narrowed by `where` on alias `t`) and returns the `returning`
 * columns with the status the row had before, in one statement; the row is locked first, so two
 * concurrent changes are ordered. Outcome metrics (config/outcome-metrics.ts) count a change only
 * when the status really changed: an activity retried after its update committed (the worker
 * lost the completion) writes the same state again and is not counted twice.
 * Undefined when no row matched. `'*'` returns every column.
 */
export async function updateStatus<T extends Record<string, unknown>>(
  db: Knex,
  table: string,
  id: number,
  changes: Record<string, unknown>,
  returning: ((keyof T & string) | '*')[],
  where: (query: Knex.QueryBuilder) => void = () => undefined,
): Promise<(T & { previous_status: string }) | undefined> {
  const query = db
    .with('previous', (previous) => previous.from(table).where({ id }).forUpdate().select('id', 'status'))
    .from({ t: table })
    .updateFrom('previous')
    .where('t.id', db.ref('previous.id'));
  where(query);
  const [row] = await query.update(changes).returning([...returning.map((column) => `t.${column}`), 'previous.status as previous_status']);
  return row as (T & { previous_status: string }) | undefined;
}
