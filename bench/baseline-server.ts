import { randomBytes } from 'node:crypto';
import http from 'node:http';
import pg from 'pg';
import type { ApiKeyRow as StoredApiKeyRow } from '../db/repositories/api-keys';
import type { CompanyRow } from '../db/repositories/companies';
import { parseApiKey, secretMatchesHash } from '../domain/api-key';
import type { CompanyAccess as Access } from '../domain/company-access';
import { presentCompany as present } from '../services/presenters/company';
import { listenUntilSignalled } from './support/baseline-http';

/**
 * The floor for `npm run bench:api`: a bare node:http server that does, per request, the same
 * work the API does for GET /v1/companies and GET /v1/me — request id, Bearer parsing, the
 * key lookup with its company list in one query (the SQL knex builds in
 * db/repositories/api-keys.ts), the constant-time SHA-256 check, the companies query and the
 * same JSON — with a plain pg.Pool of the same size. No Koa, no router, no knex. Whatever the
 * API is slower than this is what the framework and query builder cost.
 *
 * Environment: DATABASE_URL, PORT, HOST (default 127.0.0.1), DATABASE_POOL_MAX (default 10).
 */

// As db/connection.ts: bigint ids come back as numbers.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number.parseInt(value, 10));

/** pg returns bigint[] elements as strings (the INT8 parser above is for scalars only). */
type ApiKeyRow = Omit<StoredApiKeyRow, 'company_ids'> & { company_ids: (number | string | null)[] };

/** As config.email.domain (INBOX_DOMAIN): the domain of each company's inbox_email. */
const INBOX_DOMAIN = (process.env.INBOX_DOMAIN ?? 'inbox.localhost').trim().toLowerCase().replace(/\.$/, '');

type Reply = { status: number; body: unknown; headers?: Record<string, string> };

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const ACCEPTABLE_INCOMING_ID = /^[A-Za-z0-9._:-]{8,128}$/;
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="document-invoicing"' };

// Exactly what knex generates for ApiKeysRepository.findById (limit is a bound parameter there too).
const FIND_API_KEY_SQL =
  'select "k".*, coalesce(array_agg(c.company_id ORDER BY c.company_id), ARRAY[]::bigint[]) AS company_ids ' +
  'from "api_keys" as "k" left join "api_key_companies" as "c" on "c"."api_key_id" = "k"."id" ' +
  'where "k"."id" = $1 group by "k"."id" limit $2';

const pool = new pg.Pool({
  connectionString: required('DATABASE_URL'),
  max: Number(process.env.DATABASE_POOL_MAX ?? 10),
});

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
}

const unauthenticated = (code: string, message: string): Reply => ({
  status: 401,
  body: { error: { code, message } },
  headers: CHALLENGE,
});

async function findApiKey(id: string): Promise<ApiKeyRow | undefined> {
  const result = await pool.query<ApiKeyRow>(FIND_API_KEY_SQL, [id, 1]);
  return result.rows[0];
}

async function listVisibleCompanies(access: Access): Promise<CompanyRow[]> {
  if (access.allCompanies) {
    return (await pool.query<CompanyRow>('select * from "companies" order by "id" asc')).rows;
  }
  if (access.companyIds.length === 0) {
    // knex renders an empty whereIn as a condition that is always false
    return (await pool.query<CompanyRow>('select * from "companies" where 1 = 0 order by "id" asc')).rows;
  }
  const placeholders = access.companyIds.map((_, index) => `$${index + 1}`).join(', ');
  const sql = `select * from "companies" where "id" in (${placeholders}) order by "id" asc`;
  return (await pool.query<CompanyRow>(sql, access.companyIds)).rows;
}

/** The API's own presenter (a plain function: no framework cost to leave out). */
function presentCompany(row: CompanyRow) {
  return present(row, INBOX_DOMAIN);
}

/** The authenticate middleware, inline: a key row, or the 401 to answer with. */
async function authenticate(header: string): Promise<{ key: ApiKeyRow; access: Access } | Reply> {
  if (header === '') {
    return unauthenticated('authentication_required', 'Send your API key in the Authorization header as "Bearer <API_KEY>".');
  }
  const bearer = BEARER.exec(header);
  const parsed = bearer ? parseApiKey(bearer[1]) : null;
  if (!parsed) {
    return unauthenticated('invalid_api_key', 'The Authorization header must be "Bearer <prefix>_live_<key_id>_<secret>".');
  }
  const key = await findApiKey(parsed.keyId);
  if (!key || key.prefix !== parsed.prefix || !secretMatchesHash(parsed.secret, key.secret_hash)) {
    return unauthenticated('invalid_api_key', 'The API key is not valid.');
  }
  if (key.revoked_at) return unauthenticated('api_key_revoked', 'This API key was revoked and no longer works.');
  const companyIds = key.company_ids.filter((id): id is number | string => id !== null).map(Number);
  const access: Access = key.all_companies ? { allCompanies: true } : { allCompanies: false, companyIds };
  return { key, access };
}

async function handle(req: http.IncomingMessage): Promise<Reply> {
  const path = (req.url ?? '/').split('?', 1)[0];
  if (req.method === 'GET' && path === '/healthz') {
    await pool.query('select 1');
    return { status: 200, body: { status: 'ok' } };
  }
  if (path !== '/v1/companies' && path !== '/v1/me') {
    return { status: 404, body: { error: { code: 'not_found', message: `No route matches ${req.method} ${path}.` } } };
  }
  const auth = await authenticate(req.headers.authorization ?? '');
  if ('status' in auth) return auth;
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    return { status: 405, body: { error: { code: 'method_not_allowed', message: 'This method is not allowed on this path.' } } };
  }
  const companies = (await listVisibleCompanies(auth.access)).map(presentCompany);
  if (path === '/v1/companies') return { status: 200, body: companies };
  const { key, access } = auth;
  return {
    status: 200,
    body: {
      id: key.id,
      name: key.name,
      prefix: key.prefix,
      scopes: key.scopes,
      role: key.role,
      all_companies: access.allCompanies,
      created_at: key.created_at.toISOString(),
      companies,
    },
  };
}

function send(res: http.ServerResponse, requestId: string, reply: Reply): void {
  const payload = JSON.stringify(reply.body);
  res.writeHead(reply.status, {
    ...reply.headers,
    'X-Request-Id': requestId,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': Buffer.byteLength(payload),
  });
  res.end(payload);
}

const server = http.createServer((req, res) => {
  const incoming = req.headers['x-request-id'];
  const requestId =
    typeof incoming === 'string' && ACCEPTABLE_INCOMING_ID.test(incoming) ? incoming : `req_${randomBytes(12).toString('hex')}`;
  handle(req).then(
    (reply) => send(res, requestId, reply),
    (error: unknown) => {
      console.error(error);
      send(res, requestId, {
        status: 500,
        body: { error: { code: 'internal_error', message: 'Something went wrong on our side. The request id identifies it for support.' } },
      });
    },
  );
});
listenUntilSignalled(server, pool, { name: 'baseline', defaultPort: 3100 });
