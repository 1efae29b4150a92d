import type { Middleware } from 'koa';
import { Counter, Histogram, register } from 'prom-client';

const requests = new Counter({
  name: 'http_requests_total',
  help: 'HTTP requests answered by the API, by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  registers: [register],
});
const duration = new Histogram({
  name: 'http_request_duration_seconds',
  help: 'HTTP request latency by method, route template and status.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [register],
});

/** Counts and times every request by its route template (koa-router's _matchedRoute), not its path. */
export function httpMetrics(): Middleware {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const route = (ctx as { _matchedRoute?: string | RegExp })._matchedRoute;
      const labels = { method: ctx.method, route: route ? String(route) : 'unmatched', status: String(ctx.status) };
      requests.inc(labels);
      duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
