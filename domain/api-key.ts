import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * API keys have the form `<prefix>_live_<key_id>_<secret>` (spec, Authentication).
 * The key_id is public and names the stored record; only a SHA-256 digest of the
 * secret is stored. The secret carries 256 bits of entropy, so a fast digest is
 * enough: there is nothing to brute-force that a slow KDF would protect.
 */
export const API_KEY_ENVIRONMENT = 'live';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const KEY_ID_LENGTH = 16;
const SECRET_LENGTH = 43; // ≈ 256 bits in base62

export type ParsedApiKey = { prefix: string; keyId: string; secret: string };

export type GeneratedApiKey = ParsedApiKey & { fullKey: string; secretHash: Buffer };

const KEY_PATTERN = new RegExp(
  `^([a-z][a-z0-9]{1,15})_${API_KEY_ENVIRONMENT}_([0-9A-Za-z]{${KEY_ID_LENGTH}})_([0-9A-Za-z]{${SECRET_LENGTH}})$`,
);

export function parseApiKey(value: string): ParsedApiKey | null {
  const match = KEY_PATTERN.exec(value);
  if (!match) return null;
  return { prefix: match[1], keyId: match[2], secret: match[3] };
}

export function generateApiKey(prefix: string): GeneratedApiKey {
  const keyId = randomBase62(KEY_ID_LENGTH);
  const secret = randomBase62(SECRET_LENGTH);
  return {
    prefix,
    keyId,
    secret,
    fullKey: `${prefix}_${API_KEY_ENVIRONMENT}_${keyId}_${secret}`,
    secretHash: hashApiKeySecret(secret),
  };
}

export function hashApiKeySecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function secretMatchesHash(secret: string, storedHash: Buffer): boolean {
  const candidate = hashApiKeySecret(secret);
  return candidate.length === storedHash.length && timingSafeEqual(candidate, storedHash);
}

/** Uniform base62 characters by rejection sampling (no modulo bias). */
function randomBase62(length: number): string {
  let result = '';
  while (result.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && result.length < length) result += BASE62[byte % 62];
    }
  }
  return result;
}
