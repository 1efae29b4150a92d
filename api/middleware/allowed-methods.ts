import type { Middleware } from 'koa';

/**
 * OPTIONS is answered on every path that exists, so `Allow` lists it too (RFC 9110 §10.2.1: the
 * methods the target supports), on the OPTIONS answer and on a 405. That answer has no content:
 * 204, not the router's 200 with an empty text/plain body. The router sets `Allow` (and a 405 or
 * an OPTIONS answer) only on a path it knows, so an unknown path stays a 404 without it.
 */
export function optionsAndAllow(): Middleware {
  return async (ctx, next) => {
    await next();
    const allow = ctx.response.get('Allow');
    if (!allow) return;
    const methods = allow.split(/\s*,\s*/);
    if (!methods.includes('OPTIONS')) ctx.set('Allow', [...methods, 'OPTIONS'].join(', '));
    if (ctx.method === 'OPTIONS' && ctx.status === 200 && !ctx.body) {
      ctx.status = 204;
      ctx.body = null;
    }
  };
}
