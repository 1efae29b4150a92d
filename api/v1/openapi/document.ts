import { z } from 'zod';
import { createDocument, type ZodOpenApiPathsObject, type ZodOpenApiResponseObject } from 'zod-openapi';
import { errorResponse, idempotencyKeyHeader } from './common';
import { HEADER_COMPONENTS, IDEMPOTENT_REPLAYED, NO_STORE, retryAfter, withResponseHeaders } from './response-headers';
import { healthQuery } from '../../health';
import { HEALTH_FAILURE_CODES } from '../../health-failures';
import { meOpenApi } from '../me/openapi';
import { companiesOpenApi } from '../companies/openapi';
import { contactsOpenApi } from '../contacts/openapi';
import { documentsOpenApi } from '../documents/openapi';
import { filesOpenApi } from '../files/openapi';
import { webhooksOpenApi } from '../webhooks/openapi';
import { webhookEventSchemas, webhookEventsOpenApi } from '../webhooks/events-openapi';
import { integrationsOpenApi } from '../integrations/openapi';
import { exportsOpenApi } from '../exports/openapi';
import { dianSettingsOpenApi } from '../dian-settings/openapi';
import { dianEventsOpenApi } from '../dian-events/openapi';
import { dianImportsOpenApi } from '../dian-imports/openapi';

export type OpenApiDocument = ReturnType<typeof createDocument>;

const healthFailure = z
  .object({
    code: z.enum(HEALTH_FAILURE_CODES).meta({
      description:
        'timeout: no answer within the deadline; unreachable: no connection; misconfigured: refused for a setting an operator must correct (a missing bucket or directory, denied permissions or credentials); storage_full: no room left; failed: any other error.',
    }),
    message: z.string().meta({ description: 'A fixed sentence per code; the error itself (naming the bucket, directory or address) is in the service log.' }),
  })
  .meta({ id: 'HealthFailure' });
const healthCheck = z.object({ status: z.enum(['ok', 'unavailable']), latency_ms: z.int().min(0), error: healthFailure.optional() }).meta({ id: 'HealthCheck' });
const health = z
  .object({ status: z.enum(['ok', 'degraded']), checks: z.object({ postgres: healthCheck, temporal: healthCheck, blob_store: healthCheck, worker: healthCheck.optional() }) })
  .meta({ id: 'Health' });

/**
 * What a signed download serves: the Content-Type it was signed with, which is one of these
 * (originals and uploads are XML, ZIP or PDF by content, domain/files/detect.ts; PDFs; a DIAN
 * event's ApplicationResponse XML and DIAN's answer as JSON). It was documented as
 * application/octet-stream, which no download is: a strict client refused every one.
 */
const binary = z.string().meta({ format: 'binary' });
const BLOB_CONTENT = {
  'application/xml': { schema: binary },
  'application/zip': { schema: binary },
  'application/pdf': { schema: binary },
  'application/json': { schema: z.looseObject({}).meta({ description: "DIAN's answer to an event, as recorded (…/dian-events/{event_id}/dian-response)." }) },
};

/** The routes outside /v1's authentication: health, this document, signed blob downloads. */
const publicOpenApi: ZodOpenApiPathsObject = {
  '/healthz': {
    get: {
      operationId: 'getHealth',
      summary: 'Reachability of Postgres, Temporal and the blob store (no authentication)',
      tags: ['Operations'],
      security: [],
      requestParams: { query: healthQuery },
      responses: {
        '200': { description: 'Every dependency answered.', headers: NO_STORE, content: { 'application/json': { schema: health } } },
        '400': errorResponse(400),
        '503': { description: 'At least one dependency did not answer or cannot be used; each failed check gives a code and a fixed message in its error (the detail is in the service log).', headers: NO_STORE, content: { 'application/json': { schema: health } } },
      },
    },
  },
  '/v1/openapi.json': {
    get: {
      operationId: 'getOpenApi',
      summary: 'This document, as JSON (no authentication)',
      tags: ['Operations'],
      security: [],
      responses: { '200': { description: 'The OpenAPI 3.1 document.', content: { 'application/json': { schema: z.looseObject({ openapi: z.string() }) } } } },
    },
  },
  '/blobs/{key}': {
    get: {
      operationId: 'downloadBlob',
      summary: 'A signed download (the Location of a file redirect); no Authorization',
      tags: ['Files'],
      security: [],
      requestParams: {
        path: z.object({ key: z.string().meta({ description: 'The blob key (may contain /).' }) }),
        query: z.object({
          expires: z.string().optional(),
          name: z.string().optional(),
          type: z.string().optional(),
          size: z.string().optional().meta({ description: 'The recorded size in bytes, on originals and uploads: a stored file of another size is not served.' }),
          signature: z.string().optional(),
        }),
      },
      responses: {
        '200': {
          description: 'The file, with the Content-Type and name it was signed with.',
          headers: {
            'Content-Disposition': { description: 'attachment, with the file name (filename and filename*).', required: true, schema: { type: 'string' } },
            'Cache-Control': { required: true, schema: { type: 'string', const: 'private, max-age=3600' } },
            'X-Content-Type-Options': { required: true, schema: { type: 'string', const: 'nosniff' } },
          },
          content: BLOB_CONTENT,
        },
        '403': errorResponse(403, 'invalid_signature or url_expired: ask the API for a new link.'),
        '404': errorResponse(404, 'not_found: files are served by object storage; file_not_available: the stored file is gone or no longer has its recorded size.'),
        '503': errorResponse(503),
      },
    },
  },
};

/**
 * Every operation's OpenAPI, in one place: each resource declares its operations next to its
 * routes (api/v1/<resource>/openapi.ts); a new route adds its operation there and that object here.
 * test/api/openapi.test.ts fails when a route has no operation or an operation no route.
 */
export const OPERATIONS: ZodOpenApiPathsObject[] = [
  publicOpenApi,
  meOpenApi,
  companiesOpenApi,
  contactsOpenApi,
  documentsOpenApi,
  filesOpenApi,
  webhooksOpenApi,
  integrationsOpenApi,
  exportsOpenApi,
  dianSettingsOpenApi,
  dianEventsOpenApi,
  dianImportsOpenApi,
];

const DESCRIPTION = `Stores the accounting documents a Colombian company receives, posts them to accounting
software, emits the buyer's DIAN events and pushes signed webhooks. Every /v1 route except
/v1/openapi.json takes \`Authorization: Bearer <prefix>_live_<key_id>_<secret>\`.
Errors are \`{"error": {"code", "message", "param"?}}\` with an \`X-Request-Id\` header
(see docs/errors.md). A method a path does not declare answers 405 with \`Allow\`; OPTIONS on any path
answers 204 with \`Allow\`, and HEAD on a GET operation answers as GET does, without a body. \`Accept\`,
\`Accept-Charset\` and \`Accept-Encoding\` are disregarded (never 406): answers are as documented, uncompressed.
Before any route, on every path: a request line (method and URL) over 16 KiB answers 414 \`uri_too_long\`,
a request line and headers over 16 KiB in all answer 431 \`headers_too_large\`, each with the error body,
then the connection closes.
Generated from the zod schemas the routes validate with (api/v1/*/openapi.ts); do not edit by hand.
`;

function mergePaths(parts: ZodOpenApiPathsObject[]): ZodOpenApiPathsObject {
  const paths: ZodOpenApiPathsObject = {};
  for (const part of parts) {
    for (const [path, item] of Object.entries(part)) {
      for (const method of Object.keys(item)) {
        if (paths[path] && method in paths[path]) throw new Error(`OpenAPI: ${method.toUpperCase()} ${path} is declared twice.`);
      }
      paths[path] = { ...paths[path], ...item };
    }
  }
  return paths;
}

const IDEMPOTENT_POST = z.object({
  'Idempotency-Key': idempotencyKeyHeader(
    'Makes a retry safe: the first 2xx answer to this request with this key is kept for 24 hours (per API key) and answered again, with Idempotent-Replayed: true, without acting twice; a request that failed keeps nothing. Not applied to a multipart body (docs/api.md).',
  ),
});
const IDEMPOTENCY_CONFLICTS = 'idempotency_key_reused: the Idempotency-Key was used for another request (path or body); idempotency_key_in_use: the first request with it still runs (Retry-After).';
const IN_USE_RETRY_AFTER = retryAfter('On idempotency_key_in_use only: seconds to wait before retrying with the same key.', false);

/**
 * Every POST takes an Idempotency-Key (api/middleware/idempotent-requests.ts), hence its header,
 * its 409s (with Retry-After while the first request runs) and Idempotent-Replayed on its 2xx
 * answers; an operation that declares the header itself (uploads) keeps its own rules.
 */
function withIdempotencyKeys(paths: ZodOpenApiPathsObject): ZodOpenApiPathsObject {
  const result: ZodOpenApiPathsObject = {};
  for (const [path, item] of Object.entries(paths)) {
    const post = item.post;
    const header = post?.requestParams?.header as z.ZodObject | undefined;
    if (!post || post.security?.length === 0 || (header && 'Idempotency-Key' in header.shape)) {
      result[path] = item;
      continue;
    }
    const conflict = post.responses?.['409'];
    const conflictDescription = conflict && 'description' in conflict ? conflict.description : undefined;
    const conflicts = errorResponse(409, conflictDescription ? `${conflictDescription} Or ${IDEMPOTENCY_CONFLICTS}` : IDEMPOTENCY_CONFLICTS);
    const responses: Record<string, ZodOpenApiResponseObject> = { ...(post.responses as Record<string, ZodOpenApiResponseObject>) };
    for (const [status, response] of Object.entries(responses)) {
      if (status.startsWith('2')) responses[status] = { ...response, headers: { ...response.headers, ...IDEMPOTENT_REPLAYED } };
    }
    responses['409'] = { ...conflicts, headers: { ...conflicts.headers, ...IN_USE_RETRY_AFTER } };
    result[path] = {
      ...item,
      post: {
        ...post,
        requestParams: { ...post.requestParams, header: header ? header.extend(IDEMPOTENT_POST.shape) : IDEMPOTENT_POST },
        responses,
      },
    };
  }
  return result;
}

/** Builds the OpenAPI 3.1 document from the operations (once per process; it is pure). */
export function buildOpenApiDocument(): OpenApiDocument {
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'Document Invoicing Service API', version: '1.0.0', description: DESCRIPTION },
    // The local default (`npm start`); a deployment serves its own URL (servedFrom).
    servers: [{ url: 'http://127.0.0.1:3000', description: 'The local service of `npm start`; GET /v1/openapi.json of a deployment names its PUBLIC_BASE_URL.' }],
    security: [{ apiKey: [] }],
    paths: withResponseHeaders(withIdempotencyKeys(mergePaths(OPERATIONS))),
    // What the service sends: one delivery per event type, its headers and body (Standard Webhooks).
    webhooks: webhookEventsOpenApi,
    components: {
      securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: '`<prefix>_live_<key_id>_<secret>`, shown once at creation.' } },
      schemas: webhookEventSchemas,
      headers: HEADER_COMPONENTS,
    },
  });
}

/** The document as a deployment serves it: its own public URL as the server. */
export function servedFrom(document: OpenApiDocument, publicBaseUrl: string): OpenApiDocument {
  return publicBaseUrl ? { ...document, servers: [{ url: publicBaseUrl, description: 'This deployment (PUBLIC_BASE_URL).' }] } : document;
}

let cached: OpenApiDocument | undefined;
export function loadOpenApiDocument(): OpenApiDocument {
  cached ??= buildOpenApiDocument();
  return cached;
}
