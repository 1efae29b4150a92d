export type RateDecision = { allowed: boolean; remaining: number; retryAfterMs: number };

type Bucket = { tokens: number; updatedAt: number };

/**
 * Token buckets keyed by caller. Buckets that have refilled completely carry no
 * information, so they are dropped on a periodic sweep and memory stays bounded by
 * the number of recently active callers.
 */
export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private lastSweep: number;

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
    private readonly now: () => number,
  ) {
    this.lastSweep = now();
  }

  take(key: string): RateDecision {
    const now = this.now();
    this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.burst, updatedAt: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.updatedAt) / 1000) * this.perSecond);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, remaining: Math.floor(bucket.tokens), retryAfterMs: 0 };
    }
    return { allowed: false, remaining: 0, retryAfterMs: ((1 - bucket.tokens) / this.perSecond) * 1000 };
  }

  /** Gives back a token taken for something that turned out not to count (at most up to the burst). */
  refund(key: string): void {
    const bucket = this.buckets.get(key);
    if (bucket) bucket.tokens = Math.min(this.burst, bucket.tokens + 1);
  }

  private sweep(now: number): void {
    const fullAfterMs = (this.burst / this.perSecond) * 1000;
    if (now - this.lastSweep < Math.max(fullAfterMs, 1000)) return;
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.updatedAt >= fullAfterMs) this.buckets.delete(key);
    }
  }
}
