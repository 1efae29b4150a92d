import type { Socket } from 'node:net';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';

/**
 * Requests one connection may have waiting for their answers (HTTP/1.1 pipelining). Node parses
 * every request a client sends without waiting for the earlier ones to be answered, and keeps each
 * one and its answer until those before it are written: a connection that sent 20,000 requests
 * and read nothing had 17,000 of them handled and held, and five such connections took the API
 * to 1.8 GB and 25 s without answering anyone (until 2026-11-25). No client pipelines that deep
 * (browsers do not pipeline at all); past this many, the connection is closed.
 */
export const MAX_PIPELINED_REQUESTS = 100;

const waiting = new WeakMap<Socket, number>();

export function pipeliningLimit(logger: Logger): Middleware {
  return async (ctx, next) => {
    const socket = ctx.req.socket;
    const count = (waiting.get(socket) ?? 0) + 1;
    if (count > MAX_PIPELINED_REQUESTS) {
      if (!socket.destroyed) {
        logger.warn({ remoteAddress: socket.remoteAddress, limit: MAX_PIPELINED_REQUESTS }, 'closed a connection with too many pipelined requests waiting');
        socket.destroy();
      }
      ctx.respond = false;
      return;
    }
    waiting.set(socket, count);
    // 'close': the answer was sent, or the connection went first.
    ctx.res.once('close', () => waiting.set(socket, (waiting.get(socket) ?? 1) - 1));
    await next();
  };
}
