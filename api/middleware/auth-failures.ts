import { secretMatchesHash, type ParsedApiKey } from '../../domain/api-key';
import { TokenBucketLimiter } from '../../domain/token-bucket';
import type { ApiKeyRecord } from '../../db/repositories/api-keys';
import { rateLimited } from './rate-limit';

export type AuthFailureLimit = { perMinute: number; burst: number; now?: () => number };

/** Keys remembered as verified; beyond this the oldest is forgotten (it only loses its head start). */
const MAX_REMEMBERED_KEYS = 10_000;

/**
 * Limits failed authentication per client address, before any database work. Each attempt
 * that is not a recently verified key takes a token from its address's bucket *before* the key
 * is looked up — so a flood of concurrent bogus keys cannot all reach Postgres before the first
 * one fails — and a success gives the token back. Without a token the answer is 429 at once.
 *
 * A key that authenticated before (same key id, prefix and secret, checked in memory against the
 * stored digest) skips the bucket, so real clients keep working at any concurrency even behind an
 * address shared with someone guessing keys; its revocation is still read from the database on
 * every request.
 */
export class AuthFailureGuard {
  private readonly buckets: TokenBucketLimiter;
  private readonly verified = new Map<string, { prefix: string; secretHash: Buffer }>();

  constructor(limit: AuthFailureLimit) {
    this.buckets = new TokenBucketLimiter(limit.perMinute / 60, limit.burst, limit.now ?? Date.now);
  }

  /** Call before looking the key up; throws 429 when the address has no failures left. Returns whether a token was taken. */
  admit(address: string, parsed: ParsedApiKey | null): boolean {
    const known = parsed && this.verified.get(parsed.keyId);
    if (known && known.prefix === parsed.prefix && secretMatchesHash(parsed.secret, known.secretHash)) return false;
    const decision = this.buckets.take(address);
    if (!decision.allowed) {
      throw rateLimited('Too many failed authentication attempts from this address', decision.retryAfterMs);
    }
    return true;
  }

  succeeded(address: string, tokenTaken: boolean, key: ApiKeyRecord): void {
    if (tokenTaken) this.buckets.refund(address);
    if (!this.verified.has(key.id) && this.verified.size >= MAX_REMEMBERED_KEYS) {
      this.verified.delete(this.verified.keys().next().value!);
    }
    this.verified.set(key.id, { prefix: key.prefix, secretHash: key.secretHash });
  }

  /** The key could not be checked (its lookup failed, e.g. Postgres unavailable): not a failure, the token goes back. */
  undecided(address: string, tokenTaken: boolean): void {
    if (tokenTaken) this.buckets.refund(address);
  }

  /**
   * A remembered key that failed with its own secret (revoked or deleted since) loses its head
   * start. A failure with another secret under its id is someone else's guess (key ids are not
   * secret): it must not take the real key's head start away from it.
   */
  failed(parsed: ParsedApiKey | null): void {
    const known = parsed && this.verified.get(parsed.keyId);
    if (known && known.prefix === parsed.prefix && secretMatchesHash(parsed.secret, known.secretHash)) this.verified.delete(parsed.keyId);
  }
}
