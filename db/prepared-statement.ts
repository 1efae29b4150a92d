import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Query options (knex's `.options()`) that run a statement as a prepared statement: each pooled
 * connection parses and plans it once, afterwards Postgres only binds and executes it. For the
 * statements run once or more per delivery, per imported file or per API request: prepared, a
 * statement cost Postgres about a quarter of the CPU it costs parsed and planned each time, and
 * the driver about 40 % less (docs/performance.md, "Prepared statements").
 *
 * Only for statements that name their columns: a `*` prepared before a migration adds a column
 * fails afterwards ("cached plan must not change result type") until the connection closes. And
 * only for statements of a bounded number of shapes (no free-length lists): every distinct text
 * stays prepared on every connection that ran it.
 */
export const PREPARED = Object.freeze({ prepared: true });

type QueryObject = { sql?: string; options?: Record<string, unknown> };
/** What knex's clients run each query with (not in knex's types). */
type RunsQueries = { _query(connection: unknown, query: QueryObject): Promise<unknown> };
// knex's own Postgres dialect (what `client: 'pg'` loads), extended below; knex takes a client class.
const PostgresClient = require('knex/lib/dialects/postgres') as typeof Knex.Client;

/**
 * The statement's name is derived from its text, so two texts never share a name (node-postgres
 * refuses that) and one text is prepared once per connection whichever query sends it.
 */
export function statementName(sql: string): string {
  let name = namesByText.get(sql);
  if (name === undefined) {
    // The texts are of a bounded number of shapes (see PREPARED); the bound only guards a misuse.
    if (namesByText.size >= MAX_REMEMBERED_NAMES) namesByText.clear();
    name = `invoicing_${createHash('sha256').update(sql).digest('base64url').slice(0, 24)}`;
    namesByText.set(sql, name);
  }
  return name;
}

/**
 * The names already derived, by text: hashing a 2 KB text per query was 1 % of the worker's main
 * thread in an upload burst (docs/performance.md, session 38).
 */
const namesByText = new Map<string, string>();
export const MAX_REMEMBERED_NAMES = 1000;

/** How many names are remembered (tests: that a text is hashed once, and that the bound holds). */
export function rememberedStatementNames(): number {
  return namesByText.size;
}

/** knex's Postgres client, which runs the queries marked PREPARED as named prepared statements. */
export class PreparingPostgresClient extends PostgresClient {
  _query(connection: unknown, query: QueryObject): Promise<unknown> {
    if (query.options?.prepared === true && query.sql) {
      const { prepared: _marker, ...options } = query.options;
      query.options = { ...options, name: statementName(query.sql) };
    }
    return (PostgresClient.prototype as unknown as RunsQueries)._query.call(this, connection, query);
  }
}

/**
 * A list of integers as one Postgres array parameter (`col = ANY(?::bigint[])`), where a `whereIn`
 * would write one placeholder per element and so a new statement text for every list length.
 */
export function postgresIntArray(values: readonly number[]): string {
  for (const value of values) if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer id: ${value}`);
  return `{${values.join(',')}}`;
}
