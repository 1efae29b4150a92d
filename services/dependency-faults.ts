import { BlobStoreFullError, BlobStoreMisconfiguredError, BlobStoreUnavailableError } from '../storage/blob-store';

/**
 * What tells a fault of a dependency (Postgres, Temporal, the blob store) from everything else.
 * The API answers these 503 / 507 (api/errors.ts); the worker retries the work they interrupt
 * for as long as it takes (activities/dependency-retries.ts), since the same call succeeds once
 * the dependency is back.
 */

/**
 * Postgres cannot be reached, is shutting down or restarting (SQLSTATE class 08 and 57P0x, a
 * refused or cut connection), refuses a new connection because all are taken (53300
 * too_many_connections: every process reconnecting at once after an outage), or no pooled
 * connection freed up within the pool's acquire timeout: the request was not served and nothing
 * of it was kept, so it can be retried.
 */
const DATABASE_UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '53300', '08000', '08001', '08003', '08004', '08006']);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error instanceof BlobStoreUnavailableError) return false;
  if (error.name === 'KnexTimeoutError') return true;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && DATABASE_UNAVAILABLE_CODES.has(code)) return true;
  // A stopped Postgres removes its Unix socket (the embedded cluster's URL names it): ENOENT on that path.
  if (code === 'ENOENT' && /\.s\.PGSQL\.\d+/.test(`${(error as { address?: string }).address ?? ''} ${error.message}`)) return true;
  // knex prefixes the driver's message with the query: "select … - Connection terminated unexpectedly".
  // pg's own connect deadline (connectionTimeoutMillis) is a bare "timeout expired": a Postgres that
  // accepts the connection and never answers (frozen, black-holed), or an API resumed after a freeze,
  // where it fires before knex's acquire deadline about every other time (was a 500).
  return /(^| - )(Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable|timeout expired)$/.test(error.message);
}

/** gRPC status codes of a call that did not reach, or got no answer in time from, Temporal's frontend. */
const GRPC_UNAVAILABLE = 14;
const GRPC_DEADLINE_EXCEEDED = 4;

/**
 * Temporal's frontend cannot be reached (gRPC UNAVAILABLE) or did not answer in time (gRPC
 * DEADLINE_EXCEEDED: a frozen or overloaded server; a dev server resumed after a SIGSTOP answers
 * the calls that waited with "context deadline exceeded"): an upload is stored but its import may
 * not have been started; a retry with the same Idempotency-Key starts it (a start that did land
 * makes the retry's start a no-op, temporal/start-workflow.ts). Until 2026-11-25 DEADLINE_EXCEEDED
 * was a 500 internal_error, and counted among an activity's attempts for its own failures.
 */
export function isTemporalUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    const { name, code, metadata } = current as { name?: string; code?: unknown; metadata?: unknown };
    if (name === 'ConnectionError' || code === GRPC_UNAVAILABLE) return true;
    // A gRPC status error (it carries metadata): a bare `code: 4` elsewhere is no deadline.
    if (code === GRPC_DEADLINE_EXCEEDED && metadata !== undefined) return true;
  }
  return false;
}

/** The blob store's disk (or its quota, or the object store) is full: nothing of the request was kept. */
export function isStorageFull(error: unknown): boolean {
  if (error instanceof BlobStoreFullError) return true;
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

/**
 * Postgres cannot write because its disk is full (SQLSTATE 53100 disk_full: "could not extend
 * file … No space left on device"): the statement was rolled back, so nothing of it was kept,
 * and the same write succeeds once space is freed. Until 2026-11-25 a 500 internal_error, and in
 * the worker counted among an activity's own failures (test/faults/postgres-full.test.ts).
 */
const DATABASE_DISK_FULL = '53100';

export function isDatabaseFull(error: unknown): boolean {
  return error instanceof Error && (error as { code?: unknown }).code === DATABASE_DISK_FULL;
}

/** The blob store cannot be used right now (unwritable, out of descriptors, unreachable, 5xx): nothing was stored. */
export function isBlobStoreUnavailable(error: unknown): boolean {
  return error instanceof BlobStoreUnavailableError;
}

/**
 * The object store refuses us for a reason of configuration (credentials, access, a missing
 * bucket): still a blob store unavailability (503, retried: the work completes once it is fixed),
 * but one the logs must name as such.
 */
export function isBlobStoreMisconfigured(error: unknown): boolean {
  return error instanceof BlobStoreMisconfiguredError;
}

/**
 * The process is out of file descriptors (EMFILE) or the system is (ENFILE), wherever it showed
 * (a database connection, a file, a socket): a fault of load, over once connections close.
 */
export function isOutOfDescriptors(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'EMFILE' || code === 'ENFILE';
}

/** Any of the above: the work did not happen because a dependency failed, and the same work can succeed later. */
export function isDependencyFault(error: unknown): boolean {
  return isBlobStoreUnavailable(error) || isStorageFull(error) || isDatabaseFull(error) || isDatabaseUnavailable(error) || isTemporalUnavailable(error) || isOutOfDescriptors(error);
}
