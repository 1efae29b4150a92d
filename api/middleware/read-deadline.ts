import type { Middleware } from 'koa';
import { ApiError, SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../errors';

/**
 * A read (GET, HEAD) not answered within `deadlineMs` is answered 503 service_unavailable with
 * Retry-After. A dependency that holds its connections open and never answers (Postgres or
 * Temporal frozen, a stalled disk or host) gives no error of its own: until 2026-11-25 such a read
 * waited for as long as the freeze, past any client's timeout. A read changes nothing, so giving
 * up on it loses nothing; writes keep waiting (docs/operations.md, "Faults": an answer they could
 * not take back). The handler is not stopped: what it still does when the dependency resumes is
 * not answered (a stream it then opens is closed by Koa, the answer being sent).
 */
export function readDeadline(deadlineMs: number): Middleware {
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    const handling = next();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'expired'>((resolve) => {
      timer = setTimeout(() => resolve('expired'), deadlineMs);
    });
    try {
      if ((await Promise.race([handling, expired])) !== 'expired') return;
    } finally {
      clearTimeout(timer);
    }
    handling.catch(() => undefined); // answered already: its late failure has no one to tell
    throw new ApiError(
      503,
      'service_unavailable',
      `The request could not be answered within ${deadlineMs / 1000} s: a dependency is not answering. Retry in ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.`,
      undefined,
      { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) },
    );
  };
}
