/** How long one call to the object store may take: a base, plus the time its bytes take at a minimum pace. */
export type OperationPace = { operationMs: number; minBytesPerSecond: number };

/**
 * The deadline of one whole call to the object store: every attempt, the backoff between them,
 * the wait for one of the client's sockets, and the body either way. The S3 client's own deadlines
 * are per attempt and on silence (decisions/0024): a store that trickles a byte every few seconds
 * never trips them, and the wait for a socket has none at all. This one is an AbortSignal handed to
 * the SDK, which destroys the request (freeing its socket) and does not retry an abort.
 *
 * It starts when the call is made, so the wait for a socket counts against it. It allows
 * `operationMs` plus `bytes / minBytesPerSecond`; a GET learns its length only from the answer,
 * and is then allowed the time for it (`allowFor`), counted from the same start.
 */
export class OperationDeadline {
  private readonly controller = new AbortController();
  private readonly startedAt = Date.now();
  private allowed: number;
  private timer: NodeJS.Timeout;

  constructor(private readonly pace: OperationPace, bytes = 0) {
    this.allowed = pace.operationMs + this.msFor(bytes);
    this.timer = setTimeout(() => this.controller.abort(), this.allowed);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get expired(): boolean {
    return this.controller.signal.aborted;
  }

  /** Milliseconds the call is allowed in all, so far. */
  get allowedMs(): number {
    return this.allowed;
  }

  /** Allows the time `bytes` more take at the minimum pace (a GET's body, once its length is known). */
  allowFor(bytes: number): void {
    if (this.expired) return;
    clearTimeout(this.timer);
    this.allowed += this.msFor(bytes);
    this.timer = setTimeout(() => this.controller.abort(), Math.max(0, this.startedAt + this.allowed - Date.now()));
  }

  /**
   * `work`, or a rejection the moment the deadline passes, whichever comes first: the SDK honours
   * the abort, but the caller's bound must not depend on every step of it doing so.
   */
  async race<T>(work: Promise<T>): Promise<T> {
    if (this.expired) throw this.signal.reason;
    let onAbort!: () => void;
    const aborted = new Promise<never>((_resolve, reject) => {
      onAbort = () => reject(this.signal.reason);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
    work.catch(() => undefined); // it rejects too once aborted, after the race is decided
    try {
      return await Promise.race([work, aborted]);
    } finally {
      this.signal.removeEventListener('abort', onAbort);
    }
  }

  clear(): void {
    clearTimeout(this.timer);
  }

  private msFor(bytes: number): number {
    return Math.ceil((bytes * 1000) / this.pace.minBytesPerSecond);
  }
}
