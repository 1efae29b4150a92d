import { createHmac, randomBytes } from 'node:crypto';

/**
 * Standard Webhooks signing (spec, Delivery format): the signed content is
 * `${webhookId}.${timestamp}.${body}`, the key is the base64-decoded secret without its
 * `whsec_` prefix, and the signature is `v1,` + base64(HMAC-SHA256).
 */
export const SECRET_PREFIX = 'whsec_';
const SECRET_BYTES = 32;

export function generateWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

export function signatureKey(secret: string): Buffer {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error('A webhook secret starts with whsec_.');
  return Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
}

export function signPayload(secret: string, webhookId: string, timestampSeconds: number, body: string): string {
  const mac = createHmac('sha256', signatureKey(secret))
    .update(`${webhookId}.${timestampSeconds}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

export type WebhookHeaders = {
  'content-type': 'application/json';
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** One `v1,` signature per valid secret, space-separated (several during a rotation's grace period). */
export function webhookHeaders(secrets: string[], webhookId: string, timestampSeconds: number, body: string): WebhookHeaders {
  if (secrets.length === 0) throw new Error('An endpoint always has at least one valid secret.');
  return {
    'content-type': 'application/json',
    'webhook-id': webhookId,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((secret) => signPayload(secret, webhookId, timestampSeconds, body)).join(' '),
  };
}
