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
      ctx.body = mapped.body;
    }
  };
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
