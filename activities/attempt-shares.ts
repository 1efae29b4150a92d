/** How many webhook attempts one endpoint, and one company's endpoints together, may have in flight in a worker. */
export type AttemptShareLimits = { perEndpoint: number; perCompany: number };

export type AttemptTarget = { endpointId: number; companyId: number | null };

/** Gives the place back; calling it twice gives it back once. */
export type Release = () => void;

/**
 * The worker's queued webhook attempt slots (activity tasks) are served first come, first served,
 * across every tenant. Without a share, a burst to one receiver that takes its 10 s held every
 * slot, and another endpoint's delivery queued behind the whole burst (60 events to a receiver
 * answering after 9.9 s delayed other endpoints' deliveries by 41–49 s). Each endpoint, and each
 * company, gets at most its share of attempts in flight here; an attempt beyond it does not wait
 * in a slot (the workflow tries again later), so the queue keeps moving for everyone else.
 */
export class AttemptShares {
  private readonly inFlight = new Map<string, number>();
  private readonly waiting = new Set<() => void>();

  constructor(private readonly limits: AttemptShareLimits) {}

  /** A place now, or null when the endpoint or its company already has its share in flight. */
  tryEnter(target: AttemptTarget): Release | null {
    const keys = this.keysOf(target);
    if (keys.some(([key, limit]) => (this.inFlight.get(key) ?? 0) >= limit)) return null;
    return this.occupy(target);
  }

  /**
   * A place, waiting up to waitMs for one: a fast receiver frees its places within milliseconds,
   * so a burst to it is not turned away; a slow one does not free them in time.
   */
  enter(target: AttemptTarget, waitMs: number): Promise<Release | null> {
    const now = this.tryEnter(target);
    if (now || waitMs <= 0) return Promise.resolve(now);
    return new Promise((resolve) => {
      const settle = (release: Release | null) => {
        clearTimeout(timer);
        this.waiting.delete(retry);
        resolve(release);
      };
      const retry = () => {
        const release = this.tryEnter(target);
        if (release) settle(release);
      };
      const timer = setTimeout(() => settle(null), waitMs);
      this.waiting.add(retry);
    });
  }

  /** A place whatever the share (attempts of older workflow runs, which cannot be told to come back later). */
  occupy(target: AttemptTarget): Release {
    const keys = this.keysOf(target);
    for (const [key] of keys) this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const [key] of keys) {
        const left = (this.inFlight.get(key) ?? 1) - 1;
        if (left === 0) this.inFlight.delete(key);
        else this.inFlight.set(key, left);
      }
      for (const retry of [...this.waiting]) retry();
    };
  }

  private keysOf(target: AttemptTarget): [string, number][] {
    const keys: [string, number][] = [[`endpoint:${target.endpointId}`, this.limits.perEndpoint]];
    if (target.companyId !== null) keys.push([`company:${target.companyId}`, this.limits.perCompany]);
    return keys;
  }
}
