import type { Context } from 'koa';

/**
 * 201 Created, with Location naming the created resource (a path under this service). Without it
 * a client must take the URL it posted to, the collection, for the new resource (RFC 9110
 * §15.3.2); idempotent replays send the same Location (api/middleware/idempotent-requests.ts).
 */
export function answerCreated(ctx: Context, location: string, body: unknown): void {
  ctx.status = 201;
  ctx.set('Location', location);
  ctx.body = body;
}
