import type { Middleware } from 'koa';
import { parseApiKey, secretMatchesHash, type ParsedApiKey } from '../../domain/api-key';
import { AuthFailureGuard, type AuthFailureLimit } from './auth-failures';
import type { ApiKeyRecord, ApiKeysRepository } from '../../db/repositories/api-keys';
import type { Role, Scope } from '../../domain/scopes';
import { ApiError } from '../errors';

export type AuthState = { apiKey: ApiKeyRecord };

const BEARER = /^Bearer\s+(\S+)\s*$/i;
const CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="document-invoicing"' };

const unauthenticated = (code: string, message: string) => new ApiError(401, code, message, undefined, CHALLENGE);

/**
 * Resolves `Authorization: Bearer <prefix>_live_<key_id>_<secret>` to a stored, unrevoked key.
 * The secret is compared as a SHA-256 digest in constant time; revocation is read on every
 * request, so it takes effect at once. Failed attempts are limited per client address
 * (`ctx.ip`, which honours TRUST_PROXY) before the database is asked (AuthFailureGuard).
 */
export function authenticate(apiKeys: ApiKeysRepository, failureLimit?: AuthFailureLimit): Middleware {
  const guard = failureLimit && failureLimit.perMinute > 0 ? new AuthFailureGuard(failureLimit) : null;
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    const bearer = BEARER.exec(header);
    const parsed = bearer ? parseApiKey(bearer[1]) : null;
    const tokenTaken = guard?.admit(ctx.ip, parsed) ?? false;
    let key: ApiKeyRecord;
    try {
      key = await resolveKey(apiKeys, header, parsed);
    } catch (error) {
      guard?.failed(parsed?.keyId);
      throw error;
    }
    guard?.succeeded(ctx.ip, tokenTaken, key);
    (ctx.state as AuthState).apiKey = key;
    await next();
  };
}

async function resolveKey(apiKeys: ApiKeysRepository, header: string, parsed: ParsedApiKey | null): Promise<ApiKeyRecord> {
  if (header === '') {
    throw unauthenticated('authentication_required', 'Send your API key in the Authorization header as "Bearer <API_KEY>".');
  }
  if (!parsed) {
    throw unauthenticated('invalid_api_key', 'The Authorization header must be "Bearer <prefix>_live_<key_id>_<secret>".');
  }
  const key = await apiKeys.findById(parsed.keyId);
  if (!key || key.prefix !== parsed.prefix || !secretMatchesHash(parsed.secret, key.secretHash)) {
    throw unauthenticated('invalid_api_key', 'The API key is not valid.');
  }
  if (key.revokedAt) {
    throw unauthenticated('api_key_revoked', 'This API key was revoked and no longer works.');
  }
  return key;
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
