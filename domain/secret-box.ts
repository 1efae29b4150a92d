import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM for secrets at rest (webhook secrets, integration credentials). Output:
 * base64(version byte ‖ 12-byte IV ‖ 16-byte tag ‖ ciphertext). The master key is 32 bytes.
 */
const VERSION = 1;

export class SecretBox {
  private readonly key: Buffer;

  constructor(masterKey: Buffer) {
    if (masterKey.length !== 32) throw new Error('The encryption key must be 32 bytes.');
    this.key = deriveKey(masterKey, 'secret-box/v1');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return Buffer.concat([Buffer.from([VERSION]), iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  open(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    if (raw.length < 29 || raw[0] !== VERSION) throw new Error('Not a sealed secret of a known version.');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(1, 13));
    decipher.setAuthTag(raw.subarray(13, 29));
    return Buffer.concat([decipher.update(raw.subarray(29)), decipher.final()]).toString('utf8');
  }
}

/** Separate keys for separate purposes from one master key (HMAC-based derivation). */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return createHmac('sha256', masterKey).update(purpose, 'utf8').digest();
}
