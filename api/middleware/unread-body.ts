import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Middleware } from 'koa';

/** A body still unread at the answer, up to this size, is read and dropped after it (see below). */
const SMALL_BODY_BYTES = 256 * 1024;
/** How long after the answer such a small body may take to arrive before the connection is closed. */
const SMALL_BODY_GRACE_MS = 2_000;

/**
 * What happens to a request body still arriving when its answer is ready: a route that does not
 * exist (404), a method it lacks (405), a key refused (401) or any error before the body was read,
 * or a handler that never reads it. Node would read and drop the rest to keep the connection
 * alive: a client dripping the body then held the socket until the request timeout, 300 s
 * (measured: a 404 to a body dripped at 1 KiB/s, answered in 21 ms, the socket held until the
 * client gave up at 12 s; a 401 to a small dripped body answered only after 2 s of draining).
 *
 * - A body of unknown length, one over SMALL_BODY_BYTES, or one refused for arriving too slowly
 *   (408): the answer says `Connection: close`, and Node closes the connection as soon as the
 *   answer is written, without reading the rest.
 * - A small declared body: answered at once and read and dropped after the answer, so a client
 *   that writes its whole body before reading does not get a reset for its last bytes instead of
 *   the answer (with the connection closed at once, Python's http.client lost the answer to a
 *   2 MB body 6 times in 30 on loopback); the connection stays usable if the body ends within
 *   SMALL_BODY_GRACE_MS, else it is closed then.
 *
 * Outside the error handler, so it sees the answer's final status.
 */
export function unreadRequestBodies(): Middleware {
  return async (ctx, next) => {
    await next();
    const request = ctx.req;
    if (request.complete || request.destroyed) return;
    if (ctx.status === 408 || !isSmallDeclaredBody(request)) {
      ctx.set('Connection', 'close');
      return;
    }
    dropAfterAnswer(request, ctx.res);
  };
}

/** A body of a declared length up to SMALL_BODY_BYTES: read and dropped after an early answer rather than cut off. */
export function isSmallDeclaredBody(request: IncomingMessage): boolean {
  const length = Number(request.headers['content-length']);
  return Number.isFinite(length) && length > 0 && length <= SMALL_BODY_BYTES;
}

/** Reads the rest of `request`'s body into nothing once `response` is written; closes the connection if it has not ended SMALL_BODY_GRACE_MS later. */
function dropAfterAnswer(request: IncomingMessage, response: ServerResponse): void {
  // A reader that gave up half-way (a body parser that threw) may still be attached.
  request.unpipe();
  response.once('finish', () => {
    if (request.complete) return;
    const timer = setTimeout(() => request.socket?.destroy(), SMALL_BODY_GRACE_MS);
    request.once('end', () => clearTimeout(timer)).once('close', () => clearTimeout(timer));
    request.resume();
  });
}
