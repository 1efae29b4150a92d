import { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiResponseObject } from 'zod-openapi';
import { LONE_SURROGATE } from '../../../domain/storable-text';
import { AUTHENTICATION_CHALLENGE, CREATED_LOCATION, NO_STORE, retryAfter, type ResponseHeaders } from './response-headers';

/**
 * The building blocks of the contract: field schemas the routes validate with (and that render
 * as JSON Schema keywords in /v1/openapi.json), the error body, and `operation()`, which gives
 * every operation the error statuses its middleware can answer. See docs/api.md ("The contract").
 */

// ---------------------------------------------------------------------------------------------
// Field schemas. Every rule is a JSON Schema keyword too (pattern, maxLength, format, enum, ...).

const CONTROL = '\\u0000-\\u001F\\u007F';
/** Whitespace that String.prototype.trim removes (controls aside). */
const SPACE = '\\u0020\\u00A0\\u1680\\u2000-\\u200A\\u2028\\u2029\\u202F\\u205F\\u3000\\uFEFF';

/** No control characters (NUL included): what every free-text field accepts. */
const NO_CONTROL_CHARACTERS = new RegExp(`^[^${CONTROL}]*$`);
/** No control characters and at least one visible character (so trimming never leaves it empty). */
const VISIBLE_TEXT = new RegExp(`^[^${CONTROL}]*[^${CONTROL}${SPACE}][^${CONTROL}]*$`);

/**
 * A lone UTF-16 surrogate (JSON "\ud800" without its pair) is no character: refused like a
 * control character, but by a check of its own, not in `pattern`: a surrogate range is no valid
 * regex for Rust and other Unicode engines that read the OpenAPI (Schemathesis' jsonschema_rs
 * then ignored the whole pattern), and generators never produce lone surrogates anyway.
 */
const wellFormed = (value: string) => !LONE_SURROGATE.test(value);

/** Length in characters (code points), as JSON Schema's maxLength counts them. */
export const characterCount = (value: string) => [...value].length;

/**
 * A trimmed, non-blank text field without control characters, at most `max` characters
 * (counted in code points, like JSON Schema and Postgres).
 */
export function text(field: string, max = 100) {
  return z
    .string({ error: `${field} must be a string.` })
    .regex(VISIBLE_TEXT, `${field} must be non-blank text without control characters.`)
    .refine(wellFormed, `${field} must not contain unpaired UTF-16 surrogates.`)
    .refine((value) => characterCount(value) <= max, `${field} must be at most ${max} characters.`)
    .trim()
    .meta({ maxLength: max });
}

/** A string without control characters and at most `max` characters; blank allowed. */
export function plainString(field: string, max: number) {
  return z
    .string({ error: `${field} must be a string.` })
    .regex(NO_CONTROL_CHARACTERS, `${field} must not contain control characters.`)
    .refine(wellFormed, `${field} must not contain unpaired UTF-16 surrogates.`)
    .refine((value) => characterCount(value) <= max, `${field} must be at most ${max} characters.`)
    .meta({ maxLength: max });
}

/**
 * A calendar date YYYY-MM-DD from 0001-01-01: month lengths and leap years are in the pattern,
 * so 2026-02-31 and 0000-01-01 are refused here (400) and never reach Date or Postgres.
 */
const DAY_OF_YEAR = '(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))';
const LEAP_YEAR = '(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)';
export const CALENDAR_DATE = new RegExp(`^(?!0000)(?:[0-9]{4}-${DAY_OF_YEAR}|${LEAP_YEAR}-02-29)$`);

export function calendarDate(field: string) {
  return z
    .string({ error: `${field} must be a date as YYYY-MM-DD.` })
    .regex(CALENDAR_DATE, `${field} must be a calendar date as YYYY-MM-DD (from 0001-01-01).`)
    .meta({ format: 'date' });
}

export { id, MAX_ID, nullableTimestamp, timestamp } from '../../../services/presenters/fields';
import { MAX_ID } from '../../../services/presenters/fields';

/**
 * An integer in a path or query string: digits only (no sign, exponent, spaces or leading zeros),
 * from `min` to `max`; rendered as `type: integer` with those bounds.
 */
export function integerParam(min: number, max: number, message: string, extra: Record<string, unknown> = {}) {
  return z
    .string({ error: message })
    .regex(/^(0|[1-9][0-9]{0,15})$/, message)
    // int(message): digits past 2^53 fail int() (zod's safe range) before max(), which answered
    // "Too big: expected int to be <=9007199254740991" for a limit of 1 to 200.
    .pipe(z.coerce.number<string>().int(message).min(min, message).max(max, message))
    .meta({
      override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
        for (const key of Object.keys(jsonSchema)) delete (jsonSchema as Record<string, unknown>)[key];
        Object.assign(jsonSchema, { type: 'integer', minimum: min, maximum: max, ...extra });
      },
    });
}

/** How an id must be written, in every 400 about one (idParam's and parseIdParam's). */
export const ID_SPELLING = 'must be a positive integer id in plain decimal digits, without sign or leading zeros';

export const idParam = integerParam(1, MAX_ID, `${ID_SPELLING}.`);

/**
 * An id in a JSON body (contact_id, document_ids[]): a JSON integer from 1 to 2^53-1, refused with
 * the field's own message. The response schemas' `id` answered zod's own words ("Invalid input:
 * expected number, received string", "Too small: expected number to be >=1").
 */
export function bodyId(message: string) {
  return z.int({ error: message }).min(1, message).max(MAX_ID, message);
}

/** The path parameters of an operation, all ids: pathIds('company_id', 'file_id'). */
export function pathIds<Name extends string>(...names: Name[]) {
  const shape = {} as Record<Name, typeof idParam>;
  for (const name of names) shape[name] = idParam;
  return z.object(shape);
}

/** Parses an id path/query parameter with `idParam`; anything else is undefined. */
export function readId(value: unknown): number | undefined {
  const parsed = idParam.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}


// ---------------------------------------------------------------------------------------------
// Lists: limit and cursor, and the {data, next_cursor, has_more} envelope.

export type LimitRule = { defaultLimit: number; maxLimit: number };

export function limitParam(rule: LimitRule) {
  // The spelling too: 00001 is 1, yet refused, and "an integer from 1 to 200" did not say why.
  return integerParam(1, rule.maxLimit, `limit must be an integer from 1 to ${rule.maxLimit}, in plain digits (no sign, spaces or leading zeros).`, { default: rule.defaultLimit });
}

export const cursorParam = z
  .string()
  .regex(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, 'cursor is malformed.')
  .meta({ description: 'The next_cursor of the previous page (opaque, bound to this list).' });

export function pageQuery(rule: LimitRule) {
  return z.object({ limit: limitParam(rule).optional(), cursor: cursorParam.optional() });
}

export function pageOf<Item extends z.ZodType>(item: Item) {
  return z.object({
    data: z.array(item),
    next_cursor: z.string().nullable().meta({ description: 'Pass as cursor to get the next page; null on the last page.' }),
    has_more: z.boolean(),
  });
}

// ---------------------------------------------------------------------------------------------
// Errors.

export const errorBody = z
  .object({
    error: z.object({
      code: z.string().meta({ description: 'snake_case machine-readable code (docs/errors.md).' }),
      message: z.string().meta({ description: 'A human sentence.' }),
      param: z.string().optional().meta({ description: 'The offending parameter, on validation errors.' }),
    }),
  })
  .meta({ id: 'Error' });

/** An Idempotency-Key: 1 to 255 printable ASCII characters (one regex for the routes and the document). */
export const IDEMPOTENCY_KEY = /^[!-~]{1,255}$/;

/** The optional Idempotency-Key header of a POST (api/middleware/idempotent-requests.ts; uploads have their own rules). */
export function idempotencyKeyHeader(description: string) {
  return z.string().regex(IDEMPOTENCY_KEY).optional().meta({ description });
}

export type ErrorStatus = 400 | 401 | 403 | 404 | 408 | 409 | 413 | 415 | 429 | 503 | 507;

const ERROR_DESCRIPTIONS: Record<ErrorStatus, string> = {
  400: 'invalid_parameter, invalid_json, invalid_cursor or invalid_multipart: the request is malformed, or carries a query parameter the operation does not declare; error.param names the field.',
  401: 'authentication_required, invalid_api_key or api_key_revoked.',
  403: 'insufficient_scope or insufficient_role: the key lacks the scope or role this operation needs.',
  404: 'not_found: no such resource, or the key may not see it.',
  408: 'request_timeout: the body arrived too slowly (no byte for 20 s, or slower than the pace it needs after 10 s; docs/operations.md, Limits); nothing was kept and the connection closes.',
  409: 'The request conflicts with the state of a resource.',
  413: 'payload_too_large (or file_too_large): the body exceeds the limit.',
  415: 'unsupported_media_type: the body is not in a content type this operation takes.',
  429: 'rate_limited: too many requests; wait Retry-After seconds.',
  503: 'service_unavailable: a dependency (database, Temporal, the file store) did not answer or could not be used; retry later.',
  507: 'insufficient_storage: a disk the service writes to is full (the file store\'s, for an upload or an on-demand PDF; the database\'s, for any write); nothing was kept; retry later, with the same Idempotency-Key.',
};

const ERROR_HEADERS: Partial<Record<ErrorStatus, ResponseHeaders>> = {
  401: AUTHENTICATION_CHALLENGE,
  429: retryAfter('Seconds to wait (at least 1).', true),
  // Every 503 service_unavailable says when to retry (api/errors.ts, api/middleware/upload-memory.ts).
  503: retryAfter('Seconds to wait before retrying.', true),
};

export function errorResponse(status: ErrorStatus, description = ERROR_DESCRIPTIONS[status]): ZodOpenApiResponseObject {
  return {
    description,
    ...(ERROR_HEADERS[status] ? { headers: ERROR_HEADERS[status] } : {}),
    content: { 'application/json': { schema: errorBody } },
  };
}

// ---------------------------------------------------------------------------------------------
// Operations.

export type Success = {
  status: 200 | 201 | 202 | 204 | 302;
  description: string;
  schema?: z.ZodType;
  headers?: ZodOpenApiResponseObject['headers'];
  links?: ZodOpenApiResponseObject['links'];
};

/** The body of an operation that takes no parameters besides its path (emptyBody): `{}` at most. */
export const NO_FIELDS = z.strictObject({}).meta({ id: 'NoFields', description: 'This operation takes no parameters: send no body, or {}.' });

export type OperationSpec = {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  /** false: no Authorization (health, this document). */
  authenticated?: boolean;
  /** The operation checks a scope or role (403). */
  restricted?: boolean;
  path?: z.ZodObject;
  query?: z.ZodObject;
  header?: z.ZodObject;
  /** A JSON body. */
  body?: z.ZodType;
  /**
   * The operation reads no body (an action on its path: test, rotate, retry, sync): none, or the
   * empty object NO_FIELDS; any field is a 400 (api/validation.ts takesNoBody). The body reader
   * still runs on every POST, hence 413 and 415 too.
   */
  emptyBody?: true;
  /** A multipart/form-data body (uploads). */
  multipart?: z.ZodType;
  success: Success;
  /** Statuses this operation answers besides those implied above, with what they mean. */
  errors?: Partial<Record<ErrorStatus, string>>;
};

/**
 * One OpenAPI operation with every status it can answer: 401/429/503 and 400 (an undeclared query
 * parameter) and 507 (a full disk) behind authentication, 400 for parameters or a body, 404 for path ids, 403 for scopes and roles,
 * 408/413/415 for bodies; `errors` adds the operation's own (409 ...) or rewords one.
 */
export function operation(spec: OperationSpec): ZodOpenApiOperationObject {
  const statuses = new Map<ErrorStatus, string>();
  const add = (status: ErrorStatus, description?: string) => statuses.set(status, description ?? statuses.get(status) ?? ERROR_DESCRIPTIONS[status]);
  const authenticated = spec.authenticated !== false;
  // Behind authentication a query parameter the operation does not declare is a 400 too (api/middleware/declared-query.ts).
  if (authenticated || spec.path || spec.query || spec.header || spec.body || spec.multipart) add(400);
  if (authenticated) [401, 429].forEach((status) => add(status as ErrorStatus));
  if (spec.restricted) add(403);
  if (spec.path) add(404);
  if (spec.body || spec.multipart || spec.emptyBody) [408, 413, 415].forEach((status) => add(status as ErrorStatus));
  // Any operation that may write: an upload or an on-demand PDF (the file store), anything else
  // that writes a row (Postgres's disk full, SQLSTATE 53100); declared wherever 503 is.
  if (authenticated || spec.path) [503, 507].forEach((status) => add(status as ErrorStatus));
  for (const [status, description] of Object.entries(spec.errors ?? {})) add(Number(status) as ErrorStatus, description);

  const { success } = spec;
  const responses: Record<string, ZodOpenApiResponseObject> = {
    [String(success.status)]: {
      description: success.description,
      ...(success.headers || success.status === 201 ? { headers: { ...(success.status === 201 ? CREATED_LOCATION : {}), ...success.headers } } : {}),
      ...(success.schema ? { content: { 'application/json': { schema: success.schema } } } : {}),
      ...(success.links ? { links: success.links } : {}),
    },
  };
  for (const status of [...statuses.keys()].sort()) responses[String(status)] = errorResponse(status, statuses.get(status));

  const requestParams = {
    ...(spec.path ? { path: spec.path } : {}),
    ...(spec.query ? { query: spec.query } : {}),
    ...(spec.header ? { header: spec.header } : {}),
  };
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: spec.tags,
    ...(authenticated ? {} : { security: [] }),
    ...(Object.keys(requestParams).length > 0 ? { requestParams } : {}),
    ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: spec.body } } } } : {}),
    ...(spec.emptyBody ? { requestBody: { required: false, content: { 'application/json': { schema: NO_FIELDS } } } } : {}),
    ...(spec.multipart ? { requestBody: { required: true, content: { 'multipart/form-data': { schema: spec.multipart } } } } : {}),
    responses,
  };
}

/** A redirect to a signed download URL. */
export const signedRedirect = (description: string): Success => ({
  status: 302,
  description: `${description} Location is a signed URL valid for one hour; follow it without the Authorization header and do not store it.`,
  headers: {
    Location: { required: true, schema: { type: 'string', format: 'uri' } },
    ...NO_STORE,
  },
});

/** OpenAPI links: `$response.body#/<field>` of this answer fills `parameter` of each operation. */
export function linksTo(parameter: string, field: string, operationIds: string[], also: Record<string, string> = {}): NonNullable<Success['links']> {
  const links: NonNullable<Success['links']> = {};
  for (const operationId of operationIds) {
    links[operationId] = { operationId, parameters: { [parameter]: `$response.body#/${field}`, ...also } };
  }
  return links;
}
