import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import { mapError } from '../errors';
import { isBlobStoreMisconfigured } from '../../services/dependency-faults';

/** Renders every failure as the JSON error body; unexpected ones are logged with their stack. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.body === undefined || ctx.body === null) fillEmptyErrorResponse(ctx);
    } catch (error) {
      const mapped = mapError(error);
      if (mapped.unexpected) {
        logger.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unhandled error');
      } else if (isBlobStoreMisconfigured(error)) {
        // Not an outage to wait out: credentials or the bucket are wrong until someone fixes them.
        logger.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, code: mapped.body.error.code }, `request refused: the file store is misconfigured: ${(error as Error).message}`);
      } else if (mapped.status === 503 || mapped.status === 507) {
        // An infrastructure fault the client can retry, but one an operator must see.
        logger.warn({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, code: mapped.body.error.code }, 'request refused: a dependency is unavailable');
      }
      ctx.status = mapped.status;
      for (const [name, value] of Object.entries(mapped.headers)) ctx.set(name, value);
      // A body refused before it was read to the end (too large, malformed, aborted): answer, then
      // close the connection rather than read an unbounded remainder to keep it alive. A small
      // unread body (an upload refused with 503 while the database is down) is read and dropped
      // first: closing a socket with unread data resets it, and the client would lose the answer.
      // Not one refused for arriving too slowly (408): waiting for the rest is what was refused.
      if (!ctx.req.complete && (mapped.status === 408 || !(await drainedSmallBody(ctx)))) ctx.set('Connection', 'close');
      ctx.body = mapped.body;
    }
  };
}

/** Request bodies up to this size are read and dropped before an error answer (see above). */
const DRAIN_LIMIT_BYTES = 256 * 1024;
const DRAIN_TIMEOUT_MS = 2_000;

async function drainedSmallBody(ctx: Context): Promise<boolean> {
  const length = Number(ctx.get('Content-Length'));
  if (!Number.isFinite(length) || length <= 0 || length > DRAIN_LIMIT_BYTES || ctx.req.readableEnded || ctx.req.destroyed) return false;
  const request = ctx.req;
  request.unpipe();
  return new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => finish(false), DRAIN_TIMEOUT_MS);
    const finish = (complete: boolean) => {
      clearTimeout(timer);
      request.off('end', onEnd).off('error', onError);
      resolve(complete);
    };
    const onEnd = () => finish(true);
    const onError = () => finish(false);
    request.on('end', onEnd).on('error', onError);
    request.resume();
  });
}

/**
 * Statuses set without a body (no route, the router's 405/501) still get the JSON error body.
 * The router answers 501 to a method it does not know at all (TRACE, PROPFIND, …): on a path
 * that exists that is a 405 like any other method it lacks; on no path, a 404.
 */
function fillEmptyErrorResponse(ctx: Context): void {
  if (ctx.status === 501) {
    const allow = ctx.response.get('Allow');
    if (allow) ctx.status = 405;
    else {
      ctx.remove('Allow');
      ctx.status = 404;
    }
  }
  if (ctx.status === 405) {
    ctx.body = { error: { code: 'method_not_allowed', message: `${ctx.method} is not allowed on ${ctx.path}; the Allow header lists the methods that are.` } };
    ctx.status = 405;
  } else if (ctx.status === 404) {
    ctx.status = 404;
    ctx.body = { error: { code: 'not_found', message: `No route matches ${ctx.method} ${ctx.path}.` } };
  } else if (ctx.status >= 400) {
    const status = ctx.status;
    ctx.body = mapError({ status, expose: false }).body;
    ctx.status = status;
  }
}
