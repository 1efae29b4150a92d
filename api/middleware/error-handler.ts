import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import { mapError } from '../errors';

/** Renders every failure as the JSON error body; unexpected ones are logged with their stack. */
export function errorHandler(logger: Logger): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        ctx.status = 404;
        ctx.body = { error: { code: 'not_found', message: `No route matches ${ctx.method} ${ctx.path}.` } };
      }
    } catch (error) {
      const mapped = mapError(error);
      if (mapped.unexpected) {
        logger.error({ err: error, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'unhandled error');
      }
      ctx.status = mapped.status;
      for (const [name, value] of Object.entries(mapped.headers)) ctx.set(name, value);
      ctx.body = mapped.body;
    }
  };
}
