/**
 * The one error type the API raises on purpose, and the one place that turns any
 * thrown value into the JSON error body `{"error": {"code", "message", "param"?}}`.
 * See docs/errors.md for the catalogue of codes.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export const notFound = (what: string) => new ApiError(404, 'not_found', `${what} was not found.`);

export const invalidParameter = (param: string, message: string) =>
  new ApiError(400, 'invalid_parameter', message, param);

export type ErrorBody = { error: { code: string; message: string; param?: string } };

/** Errors thrown by Koa, the router or Node with an HTTP status of their own. */
type HttpLikeError = { status?: number; statusCode?: number; expose?: boolean; message?: string; headers?: unknown };

const CODE_BY_STATUS: Record<number, string> = {
  400: 'bad_request',
  401: 'authentication_required',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  409: 'conflict',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  429: 'rate_limited',
  501: 'not_implemented',
};

export type MappedError = { status: number; body: ErrorBody; headers: Record<string, string>; unexpected: boolean };

/** Seconds a client should wait after a 503 service_unavailable (docs/errors.md). */
export const SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Postgres cannot be reached, is shutting down or restarting (SQLSTATE class 08 and 57P0x, a
 * refused or cut connection), or no pooled connection freed up within the pool's acquire
 * timeout: the request was not served and nothing of it was kept, so it can be retried.
 */
const DATABASE_UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', '57P01', '57P02', '57P03', '08000', '08001', '08003', '08004', '08006']);

export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'KnexTimeoutError') return true;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string' && DATABASE_UNAVAILABLE_CODES.has(code)) return true;
  // A stopped Postgres removes its Unix socket (the embedded cluster's URL names it): ENOENT on that path.
  if (code === 'ENOENT' && /\.s\.PGSQL\.\d+/.test(`${(error as { address?: string }).address ?? ''} ${error.message}`)) return true;
  // knex prefixes the driver's message with the query: "select … - Connection terminated unexpectedly".
  return /(^| - )(Connection terminated( unexpectedly| due to connection timeout)?|Client has encountered a connection error and is not queryable|Client was closed and is not queryable)$/.test(error.message);
}

/**
 * Temporal's frontend cannot be reached (gRPC UNAVAILABLE): an upload is stored but its import
 * could not be started; a retry with the same Idempotency-Key starts it.
 */
export function isTemporalUnavailable(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current && depth < 5; current = (current as { cause?: unknown }).cause, depth += 1) {
    const { name, code } = current as { name?: string; code?: unknown };
    if (name === 'ConnectionError' || (name === 'ServiceError' && code === 14) || code === 14) return true;
  }
  return false;
}

/** The blob store's disk (or its quota) is full: nothing of the request was kept. */
export function isStorageFull(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}

export function mapError(error: unknown): MappedError {
  if (error instanceof ApiError) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    if (error.param) body.error.param = error.param;
    return { status: error.status, body, headers: error.headers, unexpected: false };
  }
  if (isDatabaseUnavailable(error)) {
    return serviceUnavailable('The service cannot reach its database right now; nothing was changed.');
  }
  if (isTemporalUnavailable(error)) {
    return serviceUnavailable('The service cannot reach its workflow engine right now; anything stored is kept, and a retry with the same Idempotency-Key completes it.');
  }
  if (isStorageFull(error)) {
    return {
      status: 507,
      body: { error: { code: 'insufficient_storage', message: 'The file store is full; nothing was kept. Retry later.' } },
      headers: {},
      unexpected: false,
    };
  }
  const httpLike = (typeof error === 'object' && error !== null ? error : {}) as HttpLikeError;
  const status = httpLike.status ?? httpLike.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500 && CODE_BY_STATUS[status]) {
    const headers: Record<string, string> = {};
    if (typeof httpLike.headers === 'object' && httpLike.headers !== null) {
      for (const [name, value] of Object.entries(httpLike.headers)) headers[name] = String(value);
    }
    const message = httpLike.expose && httpLike.message ? ensureSentence(httpLike.message) : defaultMessage(status);
    return { status, body: { error: { code: CODE_BY_STATUS[status], message } }, headers, unexpected: false };
  }
  return {
    status: 500,
    body: { error: { code: 'internal_error', message: 'Something went wrong on our side. The request id identifies it for support.' } },
    headers: {},
    unexpected: true,
  };
}

function serviceUnavailable(message: string): MappedError {
  return {
    status: 503,
    body: { error: { code: 'service_unavailable', message: `${message} Retry in ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.` } },
    headers: { 'Retry-After': String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS) },
    unexpected: false,
  };
}

function defaultMessage(status: number): string {
  if (status === 405) return 'This method is not allowed on this path.';
  if (status === 404) return 'No such route.';
  return 'The request could not be processed.';
}

function ensureSentence(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}
