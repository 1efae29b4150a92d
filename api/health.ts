import { randomUUID } from 'node:crypto';
import type Router from '@koa/router';
import { createRouter } from './router';
import { z } from 'zod';
import type { Logger } from 'pino';
import { parseQuery } from './validation';
import type { ApiDependencies } from './app-context';
import { executeWorkflow } from '../temporal/start-workflow';
import { systemCheckWorkflow } from '../workflows/system-check';
import { CheckTimeoutError, classifyHealthFailure, HEALTH_FAILURE_MESSAGES, type HealthFailureCode } from './health-failures';

/** GET /healthz's query, as the OpenAPI document shows it. */
export const healthQuery = z.object({
  deep: z
    .enum(['true', 'false', '1', '0'], { error: 'deep must be true or false.' })
    .optional()
    .meta({ description: 'With true, also runs a workflow end to end (a worker must be polling); adds checks.worker.' }),
});

/** What anyone is told of a check: a failure's code and fixed message, never its error (which is logged). */
type CheckResult = { status: 'ok' | 'unavailable'; latency_ms: number; error?: { code: HealthFailureCode; message: string } };
type CheckOutcome = { result: CheckResult; error?: unknown };

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

/** While a check keeps failing the same way, its error is logged again at most this often. */
const FAILURE_LOG_REPEAT_MS = 60_000;

/**
 * GET /healthz, without authentication (every check single-flight, an ok result reused for a
 * second, the blob store's for 5): can this process reach Postgres and Temporal, and use its
 * blob store (a file written and removed in its directory, or S3's HeadBucket; single-flight, an
 * ok result reused for 5 s)? A failed check answers a code and a fixed message only (the endpoint
 * needs no key); its error, which names the bucket, the directory or the address, goes to the log
 * once per change of state (failureLog).
 * With ?deep=true it also runs a workflow end to end, proving a worker is polling and
 * its activities reach Postgres. The deep check is shared: concurrent callers wait for one run,
 * and a successful run answers for DEEP_RESULT_TTL_MS, so unauthenticated callers cannot start a
 * workflow each (at most one at a time, one per 5 s while healthy).
 */
export function healthRoutes({ config, db, temporal, blobStore, logger }: ApiDependencies): Router {
  const router = createRouter();
  const logged = (check: string, run: () => Promise<CheckOutcome>) => {
    const log = failureLog(check, logger);
    return async () => log(await run());
  };
  const workerCheck = singleFlight(
    logged('worker', () =>
      timed(
        () =>
          executeWorkflow({ client: temporal.client, taskQueue: config.temporal.taskQueue }, systemCheckWorkflow, {
            workflowId: `system-check-${randomUUID()}`,
            workflowExecutionTimeout: '30 seconds',
          }),
        WORKER_CHECK_TIMEOUT_MS,
      ),
    ),
    DEEP_RESULT_TTL_MS,
  );
  const blobStoreCheck = singleFlight(logged('blob_store', () => timed(() => blobStore.check(CHECK_TIMEOUT_MS))), BLOB_STORE_RESULT_TTL_MS);
  const postgresCheck = singleFlight(logged('postgres', () => timed(() => db.raw('select 1'))), DEPENDENCY_RESULT_TTL_MS);
  const temporalCheck = singleFlight(
    logged('temporal', () => timed(() => temporal.connection.withDeadline(Date.now() + CHECK_TIMEOUT_MS, () => temporal.connection.healthService.check({})))),
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

/**
 * A check's log (its outcomes, one run at a time): the error of a failure, whole, when the check
 * turns to failing or fails otherwise (another code), again at most every FAILURE_LOG_REPEAT_MS
 * while it keeps failing so, and a line when it is ok again. Checks run per probe while failing
 * (a failure is not reused), so a flood of probes must not be a flood of lines.
 */
function failureLog(check: string, logger: Logger): (outcome: CheckOutcome) => CheckResult {
  let state: HealthFailureCode | 'ok' = 'ok';
  let loggedAt = 0;
  return ({ result, error }) => {
    const now = Date.now();
    const next = result.error?.code ?? 'ok';
    if (next === state && (next === 'ok' || now - loggedAt < FAILURE_LOG_REPEAT_MS)) return result;
    if (result.error) {
      logger.error({ check, code: result.error.code, latencyMs: result.latency_ms, err: error }, `health check ${check} failed (${result.error.code}): ${(error as Error)?.message}`);
    } else {
      logger.info({ check, latencyMs: result.latency_ms }, `health check ${check} is ok again`);
    }
    state = next;
    loggedAt = now;
    return result;
  };
}

async function timed(check: () => Promise<unknown>, timeoutMs = CHECK_TIMEOUT_MS): Promise<CheckOutcome> {
  const started = performance.now();
  try {
    await withTimeout(check(), timeoutMs);
    return { result: { status: 'ok', latency_ms: Math.round(performance.now() - started) } };
  } catch (error) {
    const code = classifyHealthFailure(error);
    return { result: { status: 'unavailable', latency_ms: Math.round(performance.now() - started), error: { code, message: HEALTH_FAILURE_MESSAGES[code] } }, error };
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeoutError(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
