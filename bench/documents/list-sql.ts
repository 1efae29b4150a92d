/**
 * The SQL of the documents list, written out by hand exactly as knex builds it for
 * DocumentsRepository.list (db/repositories/documents.ts) with no filters: the same columns,
 * the same contact join, the same order and the same bound parameters. The bare baseline server
 * and the EXPLAIN step of bench/documents.ts run these strings; the API runs knex's own.
 *
 * If the repository's query changes, change these too (bench/documents.ts checks that the
 * baseline's pages are identical to the API's before it measures anything).
 */

const SELECT_AND_JOIN =
  'select "d".*, "c"."name" as "contact_name", "c"."id_number" as "contact_id_number", ' +
  `to_char(d.issued_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS issued_at_key ` +
  'from "documents" as "d" left join "contacts" as "c" on "c"."id" = "d"."contact_id" ' +
  'where "d"."company_id" = $1 and "d"."document_type" = $2';

const ORDER = ' order by "d"."issued_at" desc, "d"."id" desc';

/** First page: $1 company id, $2 document type, $3 limit. */
export const FIRST_PAGE_SQL = `${SELECT_AND_JOIN}${ORDER} limit $3`;

/** Keyset page strictly after ($3 issued_at_key, $4 id): $5 limit. What the API runs for ?cursor=. */
export const KEYSET_PAGE_SQL = `${SELECT_AND_JOIN} and (d.issued_at, d.id) < ($3::timestamptz, $4)${ORDER} limit $5`;

/** The same page by position, the way a naive list would do it: $3 limit, $4 offset. */
export const OFFSET_PAGE_SQL = `${SELECT_AND_JOIN}${ORDER} limit $3 offset $4`;

/** Rows fetched per page: the page size plus one that only says whether more exist (api/pagination.ts). */
export const PAGE_SIZE = 50;
export const FETCH_ROWS = PAGE_SIZE + 1;

export const LISTED_TYPE = 'electronic_invoice';

/** The cursor scope the API signs for an unfiltered invoices list (api/v1/documents/routes.ts). */
export const invoicesCursorScope = (companyId: number) => `documents:${companyId}:${LISTED_TYPE}:||||`;

/** The keyset position inside an API cursor (base64url(JSON).base64url(HMAC)); the signature is not checked. */
export function cursorPosition(cursor: string): [string, number] {
  const [body] = cursor.split('.');
  const payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as { position?: unknown };
  const position = payload.position;
  if (!Array.isArray(position) || typeof position[0] !== 'string' || typeof position[1] !== 'number') {
    throw new Error(`unexpected cursor payload ${JSON.stringify(payload)}`);
  }
  return [position[0], position[1]];
}
