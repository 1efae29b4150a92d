import { randomBytes } from 'node:crypto';
import type { Middleware } from 'koa';
import { runWithRequestContext } from '../../temporal/request-context';

const ACCEPTABLE_INCOMING_ID = /^[A-Za-z0-9._:-]{8,128}$/;

/** A request id of our own, for a request that brought none (or none usable). */
export const newRequestId = () => `req_${randomBytes(12).toString('hex')}`;

/**
 * Every response carries X-Request-Id; a well-formed id sent by the caller is kept for tracing.
 * The rest of the request runs in its request context, so workflows it starts carry the id.
 */
export function requestId(): Middleware {
  return async (ctx, next) => {
    const incoming = ctx.get('X-Request-Id');
    const id = ACCEPTABLE_INCOMING_ID.test(incoming) ? incoming : newRequestId();
    ctx.state.requestId = id;
    ctx.set('X-Request-Id', id);
    await runWithRequestContext({ requestId: id }, next);
  };
}
