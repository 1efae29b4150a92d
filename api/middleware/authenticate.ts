import type { Middleware } from 'koa';
import { parseApiKey, secretMatchesHash } from '../../domain/api-key';
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
 * request, so it takes effect at once.
 */
export function authenticate(apiKeys: ApiKeysRepository): Middleware {
  return async (ctx, next) => {
    const header = ctx.get('Authorization');
    if (header === '') {
      throw unauthenticated(
        'authentication_required',
        'Send your API key in the Authorization header as "Bearer <API_KEY>".',
      );
    }
    const bearer = BEARER.exec(header);
    const parsed = bearer ? parseApiKey(bearer[1]) : null;
    if (!parsed) {
      throw unauthenticated(
        'invalid_api_key',
        'The Authorization header must be "Bearer <prefix>_live_<key_id>_<secret>".',
      );
    }
    const key = await apiKeys.findById(parsed.keyId);
    if (!key || key.prefix !== parsed.prefix || !secretMatchesHash(parsed.secret, key.secretHash)) {
      throw unauthenticated('invalid_api_key', 'The API key is not valid.');
    }
    if (key.revokedAt) {
      throw unauthenticated('api_key_revoked', 'This API key was revoked and no longer works.');
    }
    (ctx.state as AuthState).apiKey = key;
    await next();
  };
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
