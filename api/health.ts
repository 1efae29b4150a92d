import Router from '@koa/router';
import type { ApiDependencies } from './app-context';

type CheckResult = { status: 'ok' | 'unavailable'; latency_ms: number; error?: string };

const CHECK_TIMEOUT_MS = 2000;

/** GET /healthz, without authentication: can this process reach Postgres and Temporal? */
export function healthRoutes({ db, temporal }: ApiDependencies): Router {
  const router = new Router();
  router.get('/healthz', async (ctx) => {
    const [postgres, temporalCheck] = await Promise.all([
      timed(() => db.raw('select 1')),
      timed(() =>
        temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () =>
          temporal.connection.healthService.check({}),
        ),
      ),
    ]);
    const healthy = postgres.status === 'ok' && temporalCheck.status === 'ok';
    ctx.status = healthy ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: healthy ? 'ok' : 'degraded', checks: { postgres, temporal: temporalCheck } };
  });
  return router;
}

async function timed(check: () => Promise<unknown>): Promise<CheckResult> {
  const started = performance.now();
  try {
    await withTimeout(check(), CHECK_TIMEOUT_MS);
    return { status: 'ok', latency_ms: Math.round(performance.now() - started) };
  } catch (error) {
    return { status: 'unavailable', latency_ms: Math.round(performance.now() - started), error: (error as Error).message };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
