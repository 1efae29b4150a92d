import http from 'node:http';
import pg from 'pg';
import { buildPage } from '../../api/pagination';
import { presentDocument } from '../../api/v1/documents/present';
import type { DocumentRow } from '../../db/repositories/documents';
import { deriveKey } from '../../domain/secret-box';
import {
  FETCH_ROWS,
  FIRST_PAGE_SQL,
  invoicesCursorScope,
  KEYSET_PAGE_SQL,
  LISTED_TYPE,
  OFFSET_PAGE_SQL,
  PAGE_SIZE,
} from './list-sql';
import { listenUntilSignalled } from '../support/baseline-http';

/**
 * The floor for `npm run bench:documents`: a bare node:http + pg.Pool server that answers one
 * company's invoices list with the SQL the API runs (bench/documents/list-sql.ts) and the
 * API's JSON — the same presentDocument, the same {data, next_cursor, has_more} envelope and
 * the same signed next_cursor — so its pages are byte-for-byte the API's. No Koa, no knex, no
 * authentication, no company lookup: one query per request.
 *
 *   GET /healthz
 *   GET /keyset                                  first page
 *   GET /keyset?after=<issued_at_key>,<id>       the page after that position (what ?cursor= does)
 *   GET /offset?offset=N                         the same kind of page by OFFSET N
 *
 * Environment: DATABASE_URL, PORT, HOST (default 127.0.0.1), COMPANY_ID, DATABASE_POOL_MAX
 * (default 10, as the API), SECRETS_ENCRYPTION_KEY (the API's, to sign identical cursors).
 */

// As db/connection.ts: bigint ids as numbers, dates as 'YYYY-MM-DD' text, numeric as strings.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number.parseInt(value, 10));
pg.types.setTypeParser(pg.types.builtins.DATE, (value: string) => value);

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const companyId = Number(required('COMPANY_ID'));
const cursorKey = deriveKey(Buffer.from(required('SECRETS_ENCRYPTION_KEY'), 'base64'), 'pagination-cursor/v1');
const scope = invoicesCursorScope(companyId);
const pool = new pg.Pool({ connectionString: required('DATABASE_URL'), max: Number(process.env.DATABASE_POOL_MAX ?? 10) });

type Reply = { status: number; body: unknown };

const badRequest = (message: string): Reply => ({ status: 400, body: { error: { code: 'invalid_parameter', message } } });

function page(rows: DocumentRow[]) {
  return buildPage(rows, { limit: PAGE_SIZE }, cursorKey, scope, (row) => [row.issued_at_key, row.id], presentDocument);
}

async function handle(req: http.IncomingMessage): Promise<Reply> {
  const url = new URL(req.url ?? '/', 'http://baseline');
  if (req.method !== 'GET') return { status: 405, body: { error: { code: 'method_not_allowed', message: 'GET only.' } } };
  if (url.pathname === '/healthz') {
    await pool.query('select 1');
    return { status: 200, body: { status: 'ok' } };
  }
  if (url.pathname === '/keyset') {
    const after = url.searchParams.get('after');
    if (after === null || after === '') {
      return { status: 200, body: page((await pool.query<DocumentRow>(FIRST_PAGE_SQL, [companyId, LISTED_TYPE, FETCH_ROWS])).rows) };
    }
    const comma = after.lastIndexOf(',');
    const id = Number(after.slice(comma + 1));
    if (comma < 1 || !Number.isSafeInteger(id)) return badRequest('after must be <issued_at_key>,<id>.');
    const result = await pool.query<DocumentRow>(KEYSET_PAGE_SQL, [companyId, LISTED_TYPE, after.slice(0, comma), id, FETCH_ROWS]);
    return { status: 200, body: page(result.rows) };
  }
  if (url.pathname === '/offset') {
    const offset = Number(url.searchParams.get('offset') ?? '0');
    if (!Number.isSafeInteger(offset) || offset < 0) return badRequest('offset must be a whole number.');
    const result = await pool.query<DocumentRow>(OFFSET_PAGE_SQL, [companyId, LISTED_TYPE, FETCH_ROWS, offset]);
    return { status: 200, body: page(result.rows) };
  }
  return { status: 404, body: { error: { code: 'not_found', message: `No route matches ${url.pathname}.` } } };
}

function send(res: http.ServerResponse, reply: Reply): void {
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(payload) });
  res.end(payload);
}

const server = http.createServer((req, res) => {
  handle(req).then(
    (reply) => send(res, reply),
    (error: unknown) => {
      console.error(error);
      send(res, { status: 500, body: { error: { code: 'internal_error', message: String(error) } } });
    },
  );
});
listenUntilSignalled(server, pool, { name: 'documents baseline', defaultPort: 3200 });
