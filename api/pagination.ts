import type { z } from 'zod';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../domain/cursor';
import { ApiError } from './errors';
import { parseQuery, rejectUnknownParameters } from './validation';
import { cursorParam, pageQuery, type LimitRule } from './v1/openapi/common';

/** The list envelope of the spec: {data, next_cursor, has_more}. */
export type Page<T> = { data: T[]; next_cursor: string | null; has_more: boolean };

export type PageRequest = { limit: number; after?: (string | number)[] };

export type { LimitRule };

/**
 * Reads `limit` and `cursor` for a list whose cursors belong to `scope` (e.g. the company and
 * collection), answering 400 invalid_parameter / invalid_cursor on bad input. The rules are the
 * schema of pageQuery(rule), which the OpenAPI document shows. A query parameter that is neither
 * `limit`, `cursor` nor one of the list's `filters` is refused (400 naming it), as an unknown body
 * field is: ignored, a Stripe-style `starting_after` served the first page again forever, and a
 * misspelt filter (`issued_form`, `limit[]`) answered an unfiltered list as if it applied.
 */
export function readPageRequest(query: Record<string, unknown>, cursorKey: Buffer, scope: string, rule: LimitRule, filters?: z.ZodObject): PageRequest {
  rejectUnknownParameters(query, ['limit', 'cursor', ...Object.keys(filters?.shape ?? {})]);
  if (typeof query.cursor !== 'undefined' && typeof query.cursor !== 'string') {
    throw new ApiError(400, 'invalid_cursor', 'cursor must be given once.', 'cursor');
  }
  const { cursor } = query;
  if (cursor !== undefined && !cursorParam.safeParse(cursor).success) throw new ApiError(400, 'invalid_cursor', 'The cursor is malformed.', 'cursor');
  const { limit = rule.defaultLimit } = parseQuery(pageQuery(rule), query);
  if (cursor === undefined) return { limit };
  try {
    return { limit, after: decodeCursor(cursorKey, cursor, scope) };
  } catch (error) {
    if (error instanceof InvalidCursorError) throw new ApiError(400, 'invalid_cursor', error.message, 'cursor');
    throw error;
  }
}

/**
 * Builds a page from up to limit+1 rows (the extra row only tells whether more exist);
 * `position` gives the keyset position of a row for the next cursor.
 */
export function buildPage<Row, Out>(
  rows: Row[],
  request: PageRequest,
  cursorKey: Buffer,
  scope: string,
  position: (row: Row) => (string | number)[],
  present: (row: Row) => Out,
): Page<Out> {
  const hasMore = rows.length > request.limit;
  const pageRows = hasMore ? rows.slice(0, request.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    data: pageRows.map(present),
    next_cursor: hasMore && last !== undefined ? encodeCursor(cursorKey, { scope, position: position(last) }) : null,
    has_more: hasMore,
  };
}
