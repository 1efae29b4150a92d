import { z } from 'zod';
import { EVENT_TYPES } from '../../../domain/webhooks/event-types';
import { id, nullableTimestamp, timestamp } from '../openapi/common';
import { DELIVERY_RETENTION_DAYS } from '../../../domain/webhooks/retry-schedule';
import { sinceTimestamp } from './delivery-filters';

const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])';
const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const IPV4 = `${OCTET}(?:\\.${OCTET}){3}`;
// RFC 3986's IPv6address, form by form (at most 8 groups, one "::"); the URL parser accepts each.
const H16 = '[0-9A-Fa-f]{1,4}';
const LS32 = `(?:${H16}:${H16}|${IPV4})`;
const IPV6 = `(?:(?:${H16}:){6}${LS32}|::(?:${H16}:){5}${LS32}|(?:${H16})?::(?:${H16}:){4}${LS32}|(?:(?:${H16}:){0,1}${H16})?::(?:${H16}:){3}${LS32}|(?:(?:${H16}:){0,2}${H16})?::(?:${H16}:){2}${LS32}|(?:(?:${H16}:){0,3}${H16})?::${H16}:${LS32}|(?:(?:${H16}:){0,4}${H16})?::${LS32}|(?:(?:${H16}:){0,5}${H16})?::${H16}|(?:(?:${H16}:){0,6}${H16})?::)`;
const HOST = `(?:${IPV4}|\\[${IPV6}\\]|(?:${LABEL}\\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)`;
const PORT = '(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[1-9][0-9]{0,3}))?';
const PCHAR = "(?:[A-Za-z0-9._~!$&'()*+,;=:@-]|%[0-9A-Fa-f]{2})";
const PATH = `(?:/(?:${PCHAR}|/)*)?`;
const QUERY = `(?:\\?(?:${PCHAR}|[/?])*)?`;
/**
 * An absolute http(s) URL with a host name, an IPv4 address or a bracketed IPv6 one, no credentials and no fragment. The
 * scheme in any case (RFC 3986: HTTPS://… is https://…); the URL is stored as the URL parser
 * normalises it.
 */
export const HTTP_URL = new RegExp(`^[Hh][Tt][Tt][Pp][Ss]?://${HOST}${PORT}${PATH}${QUERY}$`);

/**
 * A client URL we will POST to (webhook endpoints, generic_http ERPs). The deployment's policy
 * (https only and public addresses in production) is checked again by parseWebhookUrl.
 */
export const clientUrl = (field: string) =>
  z
    .string({ error: `${field} must be a string.` })
    .max(2048, `${field} must be at most 2048 characters.`)
    .regex(HTTP_URL, `${field} must be an absolute http(s) URL without credentials or fragment.`)
    .meta({ format: 'uri', description: 'Absolute http(s) URL; in production https and a public address.' });

export const eventType = z.enum(EVENT_TYPES, { error: `Unknown event type. Known: ${EVENT_TYPES.join(', ')}.` }).meta({ id: 'EventType' });

const events = z
  .array(eventType, { error: 'events must be a list of event type names.' })
  .max(EVENT_TYPES.length * 2, 'events lists too many types.')
  .transform((list) => [...new Set(list)]);

/** POST /v1/companies/{company_id}/webhooks. An empty events list subscribes to every type, present and future. */
export const endpointIn = z
  .strictObject({
    url: clientUrl('url'),
    events: events.default([]).meta({ description: 'Subscribed event types; empty means all, including types added later.' }),
  })
  .meta({ id: 'WebhookEndpointIn' });

/** PATCH /v1/webhooks/{webhook_id}: any of enabled, url, events. */
export const endpointPatch = z
  .strictObject({ enabled: z.boolean({ error: 'enabled must be true or false.' }).optional(), url: clientUrl('url').optional(), events: events.optional() })
  .refine((patch) => Object.keys(patch).length > 0, 'Send at least one of enabled, url, events.')
  .meta({ id: 'WebhookEndpointPatch', minProperties: 1 });

export const endpointOut = z
  .object({
    id,
    company_id: id,
    url: z.string(),
    events: z.array(z.string()).meta({ description: 'Subscribed event types; empty means all.' }),
    enabled: z.boolean().meta({ description: 'false after automatic deactivation (20 consecutive failed deliveries) or PATCH.' }),
    consecutive_failures: z.int().min(0),
    created_at: timestamp,
    updated_at: timestamp,
    secret: z.string().regex(/^whsec_/).optional().meta({ description: 'whsec_ + base64 of 32 random bytes; only in the answers of creation and rotation.' }),
  })
  .meta({ id: 'WebhookEndpoint' });

export const deliveryOut = z
  .object({
    id,
    event_id: z.string().meta({ format: 'uuid', description: 'Equals the webhook-id header and the body id.' }),
    event_type: z.string(),
    status: z.enum(['pending', 'delivered', 'failed']),
    attempts: z.int().min(0),
    next_attempt_at: nullableTimestamp,
    last_status_code: z.int().nullable(),
    last_error: z.string().nullable(),
    resend_of: id.nullable().meta({ description: 'The delivery this one resends, if any.' }),
    resent_as: id.nullable().meta({ description: 'The delivery that resent this one, if any.' }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'WebhookDelivery' });

export const testEventOut = z.object({
  event_id: z.string().meta({ format: 'uuid' }),
  type: z.literal('webhook.test'),
  delivery_id: id.meta({ description: 'The delivery of the event to this endpoint: its outcome shows at the Location (getWebhookDelivery).' }),
});

export type EndpointOut = z.infer<typeof endpointOut>;
export type DeliveryOut = z.infer<typeof deliveryOut>;

/** POST /v1/webhooks/{webhook_id}/recover: resend the deliveries that failed since this time. */
export const recoverIn = z.strictObject({
  since: sinceTimestamp(`Resend the failed deliveries created at or after this instant, within the last ${DELIVERY_RETENTION_DAYS} days (the delivery history).`),
});
