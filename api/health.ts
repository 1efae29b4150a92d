import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import { createRouter } from './router';
import { z } from 'zod';
import { parseQuery } from './validation';
import type { ApiDependencies } from './app-context';
import { executeWorkflow } from '../temporal/start-workflow';
import { systemCheckWorkflow } from '../workflows/system-check';

/** GET /healthz's query, as the OpenAPI document shows it. */
export const healthQuery = z.object({
  deep: z
    .enum(['true', 'false', '1', '0'], { error: 'deep must be true or false.' })
    .optional()
    .meta({ description: 'With true, also runs a workflow end to end (a worker must be polling); adds checks.worker.' }),
});

type CheckResult = { status: 'ok' | 'unavailable'; latency_ms: number; error?: string };

const CHECK_TIMEOUT_MS = 2000;
const WORKER_CHECK_TIMEOUT_MS = 5000;
/** How long a successful deep check answers for everyone (it needs no key, so it must be cheap). */
const DEEP_RESULT_TTL_MS = 5000;

/** How long a successful blob-store check answers for everyone (it writes a file, or asks S3). */
const BLOB_STORE_RESULT_TTL_MS = 5000;

/**
 * How long a successful Postgres or Temporal check answers for everyone. Run per request, a flood
 * of unauthenticated GET /healthz (50 connections, 400–1,100 requests/s on 2 cores) took a pooled
 * database connection and a Temporal call each, and an authenticated list's p50 went from 13 to
 * 66–199 ms (a flood of 404s, at 3,200 requests/s: 18 ms). A probe every few seconds still sees a
 * result at most a second old; a failed check is never reused.
 */
const DEPENDENCY_RESULT_TTL_MS = 1000;

/**
 * GET /healthz, without authentication (every check single-flight, an ok result reused for a
 * second, the blob store's for 5): can this process reach Postgres and Temporal, and use its
 * blob store (a file written and removed in its directory, or S3's HeadBucket: a missing bucket or
 * denied credentials are named in checks.blob_store.error; single-flight, an ok result reused for
 * 5 s)?
 * With ?deep=true it also runs a workflow end to end, proving a worker is polling and
 * its activities reach Postgres. The deep check is shared: concurrent callers wait for one run,
 * and a successful run answers for DEEP_RESULT_TTL_MS, so unauthenticated callers cannot start a
 * workflow each (at most one at a time, one per 5 s while healthy).
 */
export function healthRoutes({ config, db, temporal, blobStore }: ApiDependencies): Router {
  const router = createRouter();
  const workerCheck = singleFlight(
    () =>
      timed(
        () =>
          executeWorkflow({ client: temporal.client, taskQueue: config.temporal.taskQueue }, systemCheckWorkflow, {
            workflowId: `system-check-${randomUUID()}`,
            workflowExecutionTimeout: '30 seconds',
          }),
        WORKER_CHECK_TIMEOUT_MS,
      ),
    DEEP_RESULT_TTL_MS,
  );
  const blobStoreCheck = singleFlight(() => timed(() => blobStore.check(CHECK_TIMEOUT_MS)), BLOB_STORE_RESULT_TTL_MS);
  const postgresCheck = singleFlight(() => timed(() => db.raw('select 1')), DEPENDENCY_RESULT_TTL_MS);
  const temporalCheck = singleFlight(
    () => timed(() => temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => temporal.connection.healthService.check({}))),
    DEPENDENCY_RESULT_TTL_MS,
  );
  router.get('/healthz', async (ctx) => {
    const query = parseQuery(healthQuery, ctx.query);
    const deep = query.deep === 'true' || query.deep === '1';
    const [postgres, temporalResult, blobStoreResult, worker] = await Promise.all([postgresCheck(), temporalCheck(), blobStoreCheck(), deep ? workerCheck() : undefined]);
    const checks = { postgres, temporal: temporalResult, blob_store: blobStoreResult, ...(worker ? { worker } : {}) };
    const healthy = Object.values(checks).every((check) => check.status === 'ok');
    ctx.status = healthy ? 200 : 503;
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: healthy ? 'ok' : 'degraded', checks };
  });
  return router;
}

/** One run at a time for all callers; a successful result is reused for ttlMs, a failed one is not. */
function singleFlight(run: () => Promise<CheckResult>, ttlMs: number): () => Promise<CheckResult> {
  let current: { promise: Promise<CheckResult>; okUntil: number } | null = null;
  return () => {
    if (current && (current.okUntil === 0 || Date.now() < current.okUntil)) return current.promise;
    const entry = { promise: run(), okUntil: 0 };
    // run() settles with a CheckResult (timed() never rejects), so nothing is lost here.
    void entry.promise.then((result) => {
      entry.okUntil = result.status === 'ok' ? Date.now() + ttlMs : -1;
    });
    current = entry;
    return entry.promise;
  };
}

async function timed(check: () => Promise<unknown>, timeoutMs = CHECK_TIMEOUT_MS): Promise<CheckResult> {
  const started = performance.now();
  try {
    await withTimeout(check(), timeoutMs);
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
