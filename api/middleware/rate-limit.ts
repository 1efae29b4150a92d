import type { Middleware } from 'koa';
import type { AuthState } from './authenticate';
import { ApiError } from '../errors';
import { TokenBucketLimiter } from '../../domain/token-bucket';

/**
 * Per-API-key token bucket: `perSecond` sustained, bursts up to `burst`. Runs after
 * authentication, so only real keys consume memory. perSecond = 0 turns limiting off.
 */
export function rateLimit(options: { perSecond: number; burst: number; now?: () => number }): Middleware {
  if (options.perSecond <= 0) return (_ctx, next) => next();
  const limiter = new TokenBucketLimiter(options.perSecond, options.burst, options.now ?? Date.now);
  return async (ctx, next) => {
    const keyId = (ctx.state as AuthState).apiKey.id;
    const decision = limiter.take(keyId);
    ctx.set('RateLimit-Limit', String(options.burst));
    ctx.set('RateLimit-Remaining', String(decision.remaining));
    if (!decision.allowed) throw rateLimited('Too many requests for this API key', decision.retryAfterMs);
    await next();
  };
}

/** 429 rate_limited with Retry-After in whole seconds (at least 1). */
export function rateLimited(what: string, retryAfterMs: number): ApiError {
  const retryAfter = String(Math.max(1, Math.ceil(retryAfterMs / 1000)));
  return new ApiError(429, 'rate_limited', `${what}; retry after ${retryAfter} s.`, undefined, { 'Retry-After': retryAfter });
}
