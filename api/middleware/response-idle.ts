import type { Middleware } from 'koa';

/**
 * Closes the connection of an answer its client stops taking: no byte accepted for `idleMs`
 * while it is written. Node's deadlines end with the request (requestTimeout counts until the
 * request is read): a client that never read its download held the socket, and the stored file
 * open, for as long as it liked (200 such downloads held 400 descriptors 100 s and more, until
 * 2026-11-25; the process has 20,000 or so). Set once the handlers are done, so a slow handler (an
 * upload waiting for budget, an on-demand PDF) never counts; a client reading slowly resets it
 * with every byte it takes. Node replaces it with keepAliveTimeout once the answer is sent.
 */
export function responseIdleTimeout(idleMs: number): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } finally {
      // Nothing listens to the socket's 'timeout': Node then destroys it, which ends the answer's stream.
      ctx.req.socket?.setTimeout(idleMs);
    }
  };
}
