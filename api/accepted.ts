import type { Context } from 'koa';

/**
 * 202 Accepted, with Location naming the resource whose GET shows the outcome of the work
 * accepted (a path under this service): RFC 9110 §15.3.3 has a 202 point to where the client can
 * watch the request, and without it a client had to know which route to poll. Only for work one
 * resource follows; idempotent replays send the same Location (api/middleware/idempotent-requests.ts
 * keeps it; an upload's replay runs its route again).
 */
export function answerAccepted(ctx: Context, statusMonitor: string, body: unknown): void {
  ctx.status = 202;
  ctx.set('Location', statusMonitor);
  ctx.body = body;
}
