import { BlobStoreFullError, BlobStoreMisconfiguredError } from '../storage/blob-store';

/**
 * What GET /healthz tells anyone of a failed check: a code from this closed set and a fixed
 * message that names no path, bucket, host or credential (the endpoint needs no key, and a raw
 * error named the bucket, BLOB_DIR and internal addresses). The error itself goes to the log.
 */
export const HEALTH_FAILURE_CODES = ['timeout', 'unreachable', 'misconfigured', 'storage_full', 'failed'] as const;
export type HealthFailureCode = (typeof HEALTH_FAILURE_CODES)[number];

export const HEALTH_FAILURE_MESSAGES: Record<HealthFailureCode, string> = {
  timeout: 'The dependency did not answer in time.',
  unreachable: 'The dependency cannot be reached.',
  misconfigured: "The dependency refuses this service's configuration (location, permissions or credentials); an operator must correct it.",
  storage_full: 'The storage has no room left.',
  failed: 'The dependency answered with an error.',
};

/** A check that did not settle within its deadline. */
export class CheckTimeoutError extends Error {
  override readonly name = 'CheckTimeoutError';
}

const TIMED_OUT = new Set(['CheckTimeoutError', 'TimeoutError', 'AbortError', 'KnexTimeoutError']);
const MISCONFIGURED_ERRNO = new Set(['EACCES', 'EPERM', 'EROFS', 'ENOENT', 'ENOTDIR']);
const UNREACHABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);
/** Postgres: wrong password or no such role (28P01, 28000), no such database (3D000). */
const MISCONFIGURED_SQLSTATE = new Set(['28P01', '28000', '3D000']);
/** gRPC status codes of Temporal's client. */
const GRPC = { deadlineExceeded: 4, permissionDenied: 7, unavailable: 14, unauthenticated: 16 };

/** The code of a failed check, from the error and its causes. */
export function classifyHealthFailure(error: unknown): HealthFailureCode {
  const chain: unknown[] = [];
  for (let current = error; current instanceof Error && chain.length < 8; current = current.cause) chain.push(current);
  const codes = chain.map((item) => (item as { code?: unknown }).code);
  if (chain.some((item) => TIMED_OUT.has((item as Error).name)) || codes.includes(GRPC.deadlineExceeded)) return 'timeout';
  if (chain.some((item) => item instanceof BlobStoreFullError)) return 'storage_full';
  if (
    chain.some((item) => item instanceof BlobStoreMisconfiguredError) ||
    codes.some((code) => typeof code === 'string' && (MISCONFIGURED_ERRNO.has(code) || MISCONFIGURED_SQLSTATE.has(code))) ||
    codes.includes(GRPC.permissionDenied) ||
    codes.includes(GRPC.unauthenticated)
  ) {
    return 'misconfigured';
  }
  if (codes.some((code) => typeof code === 'string' && UNREACHABLE_ERRNO.has(code)) || codes.includes(GRPC.unavailable)) return 'unreachable';
  return 'failed';
}
