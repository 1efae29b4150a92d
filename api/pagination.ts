import { decodeCursor, encodeCursor, InvalidCursorError } from '../domain/cursor';
import { ApiError, invalidParameter } from './errors';

/** The list envelope of the spec: {data, next_cursor, has_more}. */
export type Page<T> = { data: T[]; next_cursor: string | null; has_more: boolean };

export type PageRequest = { limit: number; after?: (string | number)[] };

export type LimitRule = { defaultLimit: number; maxLimit: number };

/**
 * Reads `limit` and `cursor` for a list whose cursors belong to `scope` (e.g. the company and
 * collection), answering 400 invalid_parameter / invalid_cursor on bad input.
 */
export function readPageRequest(query: Record<string, unknown>, cursorKey: Buffer, scope: string, rule: LimitRule): PageRequest {
  const limit = parseLimit(query.limit, rule);
  const cursor = query.cursor;
  if (cursor === undefined || cursor === '') return { limit };
  if (typeof cursor !== 'string') throw new ApiError(400, 'invalid_cursor', 'cursor must be given once.', 'cursor');
  try {
    return { limit, after: decodeCursor(cursorKey, cursor, scope) };
  } catch (error) {
    if (error instanceof InvalidCursorError) throw new ApiError(400, 'invalid_cursor', error.message, 'cursor');
    throw error;
  }
}

function parseLimit(value: unknown, rule: LimitRule): number {
  if (value === undefined || value === '') return rule.defaultLimit;
  if (typeof value !== 'string' || !/^[0-9]{1,6}$/.test(value)) {
    throw invalidParameter('limit', `limit must be an integer from 1 to ${rule.maxLimit}.`);
  }
  const limit = Number(value);
  if (limit < 1 || limit > rule.maxLimit) throw invalidParameter('limit', `limit must be an integer from 1 to ${rule.maxLimit}.`);
  return limit;
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
