import { isBlobStoreUnavailable, isDatabaseFull, isDatabaseUnavailable, isOutOfDescriptors, isStorageFull, isTemporalUnavailable } from '../services/dependency-faults';

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

/** How many unknown names a message lists, and how many characters of each it shows. */
const LISTED_NAMES = 10;
const NAME_CHARS = 64;

/** A name as a message or `param` shows it: at most NAME_CHARS characters, the cut marked with '…'. */
export function shownName(name: string): string {
  const characters = [...name];
  return characters.length > NAME_CHARS ? `${characters.slice(0, NAME_CHARS).join('')}…` : name;
}

/**
 * 400 invalid_parameter naming the parameters a request may not send (body fields, query
 * parameters), `param` the first. The names are the client's: each is quoted and cut to 64
 * characters, and at most 10 are listed, so the answer stays one sentence whatever was sent
 * (a body of 80,000 unknown keys was answered with a 630 KB message, one 900 KB key with 1.8 MB).
 */
export function unknownParameters(names: readonly string[], takes?: readonly string[]): ApiError {
  const listed = names.slice(0, LISTED_NAMES).map((name) => JSON.stringify(shownName(name))).join(', ');
  const more = names.length > LISTED_NAMES ? ` and ${names.length - LISTED_NAMES} more` : '';
  const hint = takes === undefined ? '' : `; ${takes.length > 0 ? `this route takes ${takes.join(', ')}` : 'this route takes none'}`;
  return new ApiError(400, 'invalid_parameter', `Unknown parameter(s): ${listed}${more}${hint}.`, shownName(names[0]));
}

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

export function mapError(error: unknown): MappedError {
  if (error instanceof ApiError) {
    const body: ErrorBody = { error: { code: error.code, message: error.message } };
    // An empty name is a name too (a query string `?=1`): only no param at all leaves it out.
    if (error.param !== undefined) body.error.param = error.param;
    return { status: error.status, body, headers: error.headers, unexpected: false };
  }
  if (isBlobStoreUnavailable(error)) {
    return serviceUnavailable('The service cannot use its file store right now; nothing was stored.');
  }
  if (isDatabaseUnavailable(error)) {
    return serviceUnavailable('The service cannot reach its database right now; nothing was changed.');
  }
  if (isTemporalUnavailable(error)) {
    return serviceUnavailable('The service cannot reach its workflow engine right now; anything stored is kept, and a retry with the same Idempotency-Key completes it.');
  }
  if (isOutOfDescriptors(error)) {
    return serviceUnavailable('The service has too many files and connections open right now; nothing was changed.');
  }
  if (isStorageFull(error)) return insufficientStorage('The file store is full; nothing was kept. Retry later.');
  if (isDatabaseFull(error)) return insufficientStorage("The service's database is full; nothing was changed. Retry later.");
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

function insufficientStorage(message: string): MappedError {
  return { status: 507, body: { error: { code: 'insufficient_storage', message } }, headers: {}, unexpected: false };
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
