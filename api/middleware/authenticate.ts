import type { Middleware } from 'koa';
import { parseApiKey, secretMatchesHash, type ParsedApiKey } from '../../domain/api-key';
import { AuthFailureGuard, type AuthFailureLimit } from './auth-failures';
import type { ApiKeyRecord, ApiKeysRepository, ApiKeyWithCompany } from '../../db/repositories/api-keys';
import type { CompanyRow } from '../../db/repositories/companies';
import { readId } from '../v1/openapi/common';
import type { Role, Scope } from '../../domain/scopes';
import { ApiError } from '../errors';

export type AuthState = {
  apiKey: ApiKeyRecord;
  /**
   * The company the request's path names, read with the key in one statement (findWithCompany);
   * row is undefined when it does not exist or the key may not see it. loadCompany uses it.
   */
  requestedCompany?: { id: number; row: CompanyRow | undefined };
};

/** `/companies/{id}` at the start of a path, under the /v1 prefix or not (the routers mount both ways). */
const COMPANY_PATH = /^(?:\/v1)?\/companies\/([^/]+)/;

/** The company id a request's path names, read by the same rule as loadCompany reads :company_id. */
function companyIdInPath(path: string): number | undefined {
  const segment = COMPANY_PATH.exec(path)?.[1];
  return segment === undefined ? undefined : readId(segment);
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="document-invoicing"' };

const unauthenticated = (code: string, message: string) => new ApiError(401, code, message, undefined, CHALLENGE);

/**
 * Resolves `Authorization: Bearer <prefix>_live_<key_id>_<secret>` to a stored, unrevoked key.
 * The secret is compared as a SHA-256 digest in constant time; revocation is read on every
 * request, so it takes effect at once. Failed attempts are limited per client address
 * (`ctx.ip`, which honours TRUST_PROXY) before the database is asked (AuthFailureGuard). A
 * request to a company's resources reads that company in the same statement as the key.
 */
export function authenticate(apiKeys: ApiKeysRepository, failureLimit?: AuthFailureLimit): Middleware {
  const guard = failureLimit && failureLimit.perMinute > 0 ? new AuthFailureGuard(failureLimit) : null;
  return async (ctx, next) => {
    // Node keeps the first of two Authorization lines and drops the rest: a proxy that reads the
    // last would authenticate one key while this API acted with another. Which was meant is not
    // ours to guess (as with a repeated Idempotency-Key): two are refused.
    const sent = ctx.req.headersDistinct.authorization ?? [];
    const header = sent.length > 1 ? null : (sent[0] ?? '');
    const bearer = header === null ? null : BEARER.exec(header);
    const parsed = bearer ? parseApiKey(bearer[1]) : null;
    const tokenTaken = guard?.admit(ctx.ip, parsed) ?? false;
    const companyId = companyIdInPath(ctx.path);
    let resolved: ApiKeyWithCompany;
    try {
      resolved = await resolveKey(apiKeys, header, parsed, companyId);
    } catch (error) {
      // Only a refused key is a failed authentication. A lost dependency (Postgres down: 503) says
      // nothing about the key: its token is given back and a verified key keeps its head start,
      // or an outage would turn every client of the address into 429s that outlast it.
      if (error instanceof ApiError && error.status === 401) guard?.failed(parsed);
      else guard?.undecided(ctx.ip, tokenTaken);
      throw error;
    }
    guard?.succeeded(ctx.ip, tokenTaken, resolved.key);
    const state = ctx.state as AuthState;
    state.apiKey = resolved.key;
    if (companyId !== undefined) state.requestedCompany = { id: companyId, row: resolved.company };
    await next();
  };
}

/** The key, with the company the path names when it names one: one statement either way. */
async function lookUp(apiKeys: ApiKeysRepository, keyId: string, companyId: number | undefined): Promise<ApiKeyWithCompany | undefined> {
  if (companyId !== undefined) return apiKeys.findWithCompany(keyId, companyId);
  const key = await apiKeys.findById(keyId);
  return key && { key, company: undefined };
}

async function resolveKey(apiKeys: ApiKeysRepository, header: string | null, parsed: ParsedApiKey | null, companyId: number | undefined): Promise<ApiKeyWithCompany> {
  if (header === null) {
    throw unauthenticated('invalid_api_key', 'Send one Authorization header, not several.');
  }
  if (header === '') {
    throw unauthenticated('authentication_required', 'Send your API key in the Authorization header as "Bearer <API_KEY>".');
  }
  if (!parsed) {
    throw unauthenticated('invalid_api_key', 'The Authorization header must be "Bearer <prefix>_live_<key_id>_<secret>".');
  }
  const found = await lookUp(apiKeys, parsed.keyId, companyId);
  if (!found || found.key.prefix !== parsed.prefix || !secretMatchesHash(parsed.secret, found.key.secretHash)) {
    throw unauthenticated('invalid_api_key', 'The API key is not valid.');
  }
  if (found.key.revokedAt) {
    throw unauthenticated('api_key_revoked', 'This API key was revoked and no longer works.');
  }
  return found;
}

export function requireScope(scope: Scope): Middleware {
  return async (ctx, next) => {
    const key = (ctx.state as AuthState).apiKey;
    if (!key.scopes.includes(scope)) {
      throw new ApiError(403, 'insufficient_scope', `This API key lacks the scope ${scope} needed here.`);
    }
    await next();
  };
}

export function requireRole(role: Role): Middleware {
  return async (ctx, next) => {
    const key = (ctx.state as AuthState).apiKey;
    if (key.role !== role) {
      throw new ApiError(403, 'insufficient_role', `This action needs an API key with the ${role} role.`);
    }
    await next();
  };
}
