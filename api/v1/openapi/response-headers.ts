import type { ZodOpenApiComponentsObject, ZodOpenApiOperationObject, ZodOpenApiPathsObject, ZodOpenApiResponseObject } from 'zod-openapi';

/**
 * The response headers the API really sends, each as the middleware that sets it sends it, so
 * that a strict client and a fuzzer's response_headers_conformance check see every one of them
 * (test/api/response-headers.test.ts compares these with real answers). `required` means every
 * answer of that kind carries it; an optional one is checked against its schema when present.
 */
export type ResponseHeaders = NonNullable<ZodOpenApiResponseObject['headers']>;

/**
 * The headers most answers carry, once in components.headers (referenced from every answer, so
 * the document names them once rather than on each of its ~600 answers).
 */
export const HEADER_COMPONENTS = {
  /** Every answer (api/middleware/request-id.ts): the caller's own id when well-formed, else `req_…`. */
  RequestId: {
    description: 'Identifies the request in our logs: the X-Request-Id you sent (8–128 of A-Z a-z 0-9 . _ : -), else one of ours (req_…).',
    required: true,
    schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{8,128}$' },
  },
  /**
   * Every answer after authentication while rate limiting is on (api/middleware/rate-limit.ts):
   * not on a 401, and absent when RATE_LIMIT_PER_SECOND is 0.
   */
  RateLimitLimit: { description: "The API key's burst (requests); absent when rate limiting is off.", schema: { type: 'integer', minimum: 1 } },
  RateLimitRemaining: { description: 'Requests this key may still send at once; absent when rate limiting is off.', schema: { type: 'integer', minimum: 0 } },
} as const satisfies NonNullable<ZodOpenApiComponentsObject['headers']>;

// Fresh objects for each answer: shared ones would be YAML aliases in docs/openapi.yaml.
const component = (name: keyof typeof HEADER_COMPONENTS) => ({ $ref: `#/components/headers/${name}` });
const requestId = (): ResponseHeaders => ({ 'X-Request-Id': component('RequestId') });
const rateLimit = (): ResponseHeaders => ({ 'RateLimit-Limit': component('RateLimitLimit'), 'RateLimit-Remaining': component('RateLimitRemaining') });

/** Retry-After in whole seconds (429 from either limiter, 503 service_unavailable, 409 idempotency_key_in_use). */
export function retryAfter(description: string, required: boolean): ResponseHeaders {
  return { 'Retry-After': { description, required, schema: { type: 'integer', minimum: 1 } } };
}

/** The replay of a kept answer (api/middleware/idempotent-requests.ts; uploads: api/v1/files/routes.ts). */
export const IDEMPOTENT_REPLAYED: ResponseHeaders = {
  'Idempotent-Replayed': { description: 'true when this is the kept answer to an earlier request with the same Idempotency-Key (nothing ran again); absent otherwise.', schema: { type: 'string', const: 'true' } },
};

/** Every 401 (api/middleware/authenticate.ts). */
export const AUTHENTICATION_CHALLENGE: ResponseHeaders = {
  'WWW-Authenticate': { description: 'The Bearer challenge (RFC 6750).', required: true, schema: { type: 'string', const: 'Bearer realm="document-invoicing"' } },
};

/** Every 201 (api/created.ts): the path of what was created. */
export const CREATED_LOCATION: ResponseHeaders = {
  Location: { description: 'The path of the created resource, under this server.', required: true, schema: { type: 'string', format: 'uri-reference', pattern: '^/v1/' } },
};

/**
 * A 202 whose outcome one resource shows (api/accepted.ts): the path of that resource, whose GET
 * the client polls; `what` names it. On an idempotent replay too.
 */
export function acceptedLocation(what: string): ResponseHeaders {
  return {
    Location: { description: `Where the outcome shows: the path of ${what}, under this server (GET it).`, required: true, schema: { type: 'string', format: 'uri-reference', pattern: '^/v1/' } },
  };
}

/** Answers that must not be cached (health, signed redirects). */
export const NO_STORE: ResponseHeaders = { 'Cache-Control': { required: true, schema: { type: 'string', const: 'no-store' } } };

/** Every documented answer gets the headers every answer of its operation carries; its own are kept. */
export function withResponseHeaders(paths: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  const result: ZodOpenApiPathsObject = {};
  for (const [path, item] of Object.entries(paths)) {
    const withHeaders: Record<string, unknown> = { ...item };
    for (const [method, value] of Object.entries(item)) {
      if (value && typeof value === 'object' && 'responses' in value) withHeaders[method] = withCommonHeaders(value as ZodOpenApiOperationObject);
    }
    result[path] = withHeaders as ZodOpenApiPathsObject[string];
  }
  return result;
}

function withCommonHeaders(operation: ZodOpenApiOperationObject): ZodOpenApiOperationObject {
  const authenticated = operation.security === undefined;
  const responses: Record<string, ZodOpenApiResponseObject> = {};
  for (const [status, response] of Object.entries(operation.responses ?? {}) as [string, ZodOpenApiResponseObject][]) {
    const rateLimited = authenticated && status !== '401';
    responses[status] = { ...response, headers: { ...requestId(), ...(rateLimited ? rateLimit() : {}), ...response.headers } };
  }
  return { ...operation, responses };
}
