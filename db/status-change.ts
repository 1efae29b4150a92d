import type { Knex } from 'knex';
import { qualified } from './columns';
import { PREPARED } from './prepared-statement';

/**
 * Updates one row (by id, optionally narrowed by `where` on alias `t`) and returns the `returning`
 * columns with the status the row had before, in one statement; the row is locked first, so two
 * concurrent changes are ordered. Outcome metrics (config/outcome-metrics.ts) count a change only
 * when the status really changed: an activity retried after its update committed (the worker
 * lost the completion) writes the same state again and is not counted twice.
 * Undefined when no row matched. Name the columns: the statement is prepared, and a prepared `*`
 * fails once a migration adds a column (db/prepared-statement.ts).
 */
export async function updateStatus<T extends Record<string, unknown>>(
  db: Knex,
  table: string,
  id: number,
  changes: Record<string, unknown>,
  returning: readonly (keyof T & string)[],
  where: (query: Knex.QueryBuilder) => void = () => undefined,
): Promise<(T & { previous_status: string }) | undefined> {
  const query = db
    .with('previous', (previous) => previous.from(table).where({ id }).forUpdate().select('id', 'status'))
    .from({ t: table })
    .updateFrom('previous')
    .where('t.id', db.ref('previous.id'));
  where(query);
  // Prepared (a status change per import, export, DIAN event…): each call site's statement has one text.
  const [row] = await query
    .update(changes)
    .returning([...qualified('t', returning), 'previous.status as previous_status'])
    .options(PREPARED);
  return row as (T & { previous_status: string }) | undefined;
}
