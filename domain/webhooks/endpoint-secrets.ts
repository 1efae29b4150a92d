import type { SecretBox } from '../secret-box';
import { generateWebhookSecret } from './signature';
import { ROTATED_SECRET_GRACE_MS } from './retry-schedule';

export type SealedSecret = { sealed: string; created_at: string; expires_at: string | null };

export function newSealedSecret(box: SecretBox, now: Date): { secret: string; stored: SealedSecret } {
  const secret = generateWebhookSecret();
  return { secret, stored: { sealed: box.seal(secret), created_at: now.toISOString(), expires_at: null } };
}

/**
 * A rotation puts a new secret first; the previous ones keep signing for 24 hours
 * (an earlier expiry is kept), and expired ones are dropped.
 */
export function rotateSecrets(box: SecretBox, current: SealedSecret[], now: Date): { secret: string; stored: SealedSecret[] } {
  const graceEnd = new Date(now.getTime() + ROTATED_SECRET_GRACE_MS).toISOString();
  const previous = current
    .filter((entry) => entry.expires_at === null || Date.parse(entry.expires_at) > now.getTime())
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
