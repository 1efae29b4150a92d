import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { EVENT_TYPES, type EventType } from '../../../domain/webhooks/event-types';
import { contactOut } from '../../../services/presenters/contact';
import { dianEventRecordOut } from '../../../services/presenters/dian-event';
import { dianImportOut } from '../../../services/presenters/dian-import';
import { exportOut } from '../../../services/presenters/export';
import { uploadedFileOut } from '../../../services/presenters/uploaded-file';
import { id, MAX_ID } from '../openapi/common';

/**
 * The deliveries themselves, as OpenAPI 3.1 `webhooks` (one per event type): the request the
 * service POSTs to an endpoint, with its Standard Webhooks headers and its body. Standard
 * Webhooks recommends "a formal specification of the structure (such as JSON Schema or
 * OpenAPI)" of each event type's payload; until 2026-11-25 the document described only the
 * management routes, and a client had to infer each `data` from prose. docs/webhooks.md.
 */

/** webhook.test's data (spec: "object with message"). */
const webhookTestData = z.object({ message: z.string() }).meta({ id: 'WebhookTestData' });

/** Every event type's `data`: a new type without one does not compile. */
const EVENT_DATA: Record<EventType, z.ZodType> = {
  'document.imported': uploadedFileOut,
  'document.import_failed': uploadedFileOut,
  'dian_import.completed': dianImportOut,
  'dian_import.failed': dianImportOut,
  'export.succeeded': exportOut,
  'export.failed': exportOut,
  'dian_event.completed': dianEventRecordOut,
  'dian_event.failed': dianEventRecordOut,
  'contact.created': contactOut,
  'contact.updated': contactOut,
  'webhook.test': webhookTestData,
};

/** As events.ts renders it: microseconds and +00:00 (spec, Delivery format). */
const EVENT_CREATED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$/;

/** `document.import_failed` → `DocumentImportFailedEvent`. */
const componentName = (type: string) =>
  `${type.split(/[._]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1)).join('')}Event`;

function eventBody<Type extends EventType>(type: Type) {
  return z
    .object({
      id: z.uuid().meta({ description: 'The event id: equals the webhook-id header; the same on every attempt and resend. Deduplicate on it.' }),
      type: z.literal(type),
      created_at: z.string().regex(EVENT_CREATED_AT).meta({ description: 'When the event occurred (ISO 8601, microseconds, +00:00); not when it was sent (webhook-timestamp).' }),
      company_id: id,
      data: EVENT_DATA[type],
    })
    .meta({ description: `The body of a ${type} delivery.` });
}

/** The body of each event type, as documented (tests check what receivers get against them). */
export const EVENT_BODIES = Object.fromEntries(EVENT_TYPES.map((type) => [type, eventBody(type)])) as { [Type in EventType]: ReturnType<typeof eventBody<Type>> };

/**
 * The event bodies as the document's components. They are written as JSON Schema around a $ref
 * to the data's component, not rendered from EVENT_BODIES: zod-openapi renders a registered zod
 * schema in both its input and output passes, and the records these bodies share with responses
 * (Contact, UploadedFile …) then got a second component (ContactOutput …) and every response's
 * $ref changed. The data components are the presenters' own (their meta id), so the body and the
 * API's answers are described by the same schema.
 */
function eventBodyComponent(type: EventType) {
  const dataId = (z.globalRegistry.get(EVENT_DATA[type]) as { id?: string } | undefined)?.id;
  if (!dataId) throw new Error(`OpenAPI: the data schema of ${type} has no meta id`);
  return {
    type: 'object' as const,
    description: `The body of a ${type} delivery.`,
    properties: {
      id: { type: 'string' as const, format: 'uuid', description: 'The event id: equals the webhook-id header; the same on every attempt and resend. Deduplicate on it.' },
      type: { type: 'string' as const, const: type },
      created_at: { type: 'string' as const, pattern: EVENT_CREATED_AT.source, description: 'When the event occurred (ISO 8601, microseconds, +00:00); not when it was sent (webhook-timestamp).' },
      company_id: { type: 'integer' as const, minimum: 1, maximum: MAX_ID },
      data: { $ref: `#/components/schemas/${dataId}` },
    },
    required: ['id', 'type', 'created_at', 'company_id', 'data'],
  };
}

/** What the document's components gain: each event body, and the data records no route answers with. */
export const webhookEventSchemas = {
  ...Object.fromEntries(EVENT_TYPES.map((type) => [componentName(type), eventBodyComponent(type)])),
  DianEventRecord: dianEventRecordOut,
  WebhookTestData: webhookTestData,
};

/** A `v1,` signature: base64 of an HMAC-SHA256 (32 bytes). */
const SIGNATURE = '^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$';
export const SIGNATURE_HEADER = new RegExp(SIGNATURE);

const deliveryHeaders = z.object({
  'webhook-id': z.uuid().meta({ description: 'The event id (= body id), identical on every attempt and resend: the idempotency key.' }),
  'webhook-timestamp': z.string().regex(/^[0-9]+$/).meta({ description: 'Unix seconds when this attempt was sent (new on every attempt). Reject it when more than 5 minutes from your clock.' }),
  'webhook-signature': z.string().regex(SIGNATURE_HEADER).meta({
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` values of `{webhook-id}.{webhook-timestamp}.{raw body}` under the secret without `whsec_`, base64-decoded: one per valid secret (up to 3 during the 24 h after a rotation). One match is enough.',
  }),
});

const DESCRIPTION =
  'Signed per Standard Webhooks (the official standardwebhooks and svix libraries verify it; docs/webhooks.md). ' +
  'Attempts at 0, +1 min, +5 min, +30 min and +2 h until a 2xx within 10 s; any other answer (3xx, 410, 429 included) or none is a failed attempt.';

/** The `webhooks` of the OpenAPI document: one per event type, keyed by its name. */
export const webhookEventsOpenApi: ZodOpenApiPathsObject = Object.fromEntries(
  EVENT_TYPES.map((type) => [
    type,
    {
      post: {
        operationId: `${componentName(type).replace(/^./, (first) => first.toLowerCase())}Delivery`,
        summary: `The ${type} event, POSTed to each subscribed endpoint`,
        description: DESCRIPTION,
        tags: ['Webhook events'],
        security: [],
        requestParams: { header: deliveryHeaders },
        // A $ref to the body in components (webhookEventSchemas), not a zod schema: see there.
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: `#/components/schemas/${componentName(type)}` } } } },
        responses: {
          '2XX': { description: 'Received (the body of the answer is ignored). Answer within 10 seconds; do the work afterwards.' },
          '400': { description: 'The receiver found no valid signature (spec: a receiver that finds an invalid signature answers 400). Retried like any failure.' },
        },
      },
    },
  ]),
);
