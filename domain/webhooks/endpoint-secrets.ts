import type { SecretBox } from '../secret-box';
import { generateWebhookSecret } from './signature';
import { ROTATED_SECRET_GRACE_MS } from './retry-schedule';

export type SealedSecret = { sealed: string; created_at: string; expires_at: string | null };

export function newSealedSecret(box: SecretBox, now: Date): { secret: string; stored: SealedSecret } {
  const secret = generateWebhookSecret();
  return { secret, stored: { sealed: box.seal(secret), created_at: now.toISOString(), expires_at: null } };
}

/**
 * Previous secrets that keep signing beside the current one. Each adds a `v1,` signature to every
 * delivery's webhook-signature header: unbounded, 360 rotations in a day made a header receivers
 * refuse (431), and every secret ever leaked that day still signed.
 */
export const MAX_PREVIOUS_SECRETS = 2;

/**
 * A rotation puts a new secret first; the previous ones keep signing for 24 hours (an earlier
 * expiry is kept), the MAX_PREVIOUS_SECRETS most recent of them; expired and older ones are
 * dropped.
 */
export function rotateSecrets(box: SecretBox, current: SealedSecret[], now: Date): { secret: string; stored: SealedSecret[] } {
  const graceEnd = new Date(now.getTime() + ROTATED_SECRET_GRACE_MS).toISOString();
  const previous = current
    .filter((entry) => entry.expires_at === null || Date.parse(entry.expires_at) > now.getTime())
    .slice(0, MAX_PREVIOUS_SECRETS)
    .map((entry) => ({ ...entry, expires_at: entry.expires_at ?? graceEnd }));
  const fresh = newSealedSecret(box, now);
  return { secret: fresh.secret, stored: [fresh.stored, ...previous] };
}

/** The secrets that sign a delivery sent at `now`, newest first. */
export function signingSecrets(box: SecretBox, stored: SealedSecret[], now: Date): string[] {
  return stored
    .filter((entry) => entry.expires_at === null || Date.parse(entry.expires_at) > now.getTime())
    .map((entry) => box.open(entry.sealed));
}
