import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Opaque, tamper-evident pagination cursors: base64url(JSON) + '.' + base64url(HMAC). The
 * payload names the collection it belongs to (`scope`), so a cursor from another company or
 * another list is refused rather than silently misapplied.
 */
export type CursorPayload = { scope: string; position: (string | number)[] };

export class InvalidCursorError extends Error {}

export function encodeCursor(key: Buffer, payload: CursorPayload): string {
  const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
  return `${body}.${mac(key, body)}`;
}

export function decodeCursor(key: Buffer, token: string, expectedScope: string): CursorPayload['position'] {
  const [body, signature, extra] = token.split('.');
  if (!body || !signature || extra !== undefined) throw new InvalidCursorError('The cursor is malformed.');
  const expected = Buffer.from(mac(key, body));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
    throw new InvalidCursorError('The cursor was not issued by this API or was altered.');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw new InvalidCursorError('The cursor is malformed.');
  }
  const parsed = payload as Partial<CursorPayload>;
  if (parsed.scope !== expectedScope || !Array.isArray(parsed.position)) {
    throw new InvalidCursorError('The cursor belongs to another list.');
  }
  return parsed.position;
}

function mac(key: Buffer, body: string): string {
  return createHmac('sha256', key).update(body, 'utf8').digest('base64url');
}
