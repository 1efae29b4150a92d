import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { AppConfig } from './index';

/**
 * The 32-byte master key that seals secrets at rest (webhook secrets, integration credentials)
 * and signs pagination cursors. SECRETS_ENCRYPTION_KEY in production; the embedded default
 * generates one on first use and keeps it in DATA_DIR/secrets.key (mode 0600).
 */
export function loadMasterKey(config: AppConfig): Buffer {
  if (config.secretsEncryptionKey) return Buffer.from(config.secretsEncryptionKey, 'base64');
  if (config.env === 'production') {
    throw new Error('SECRETS_ENCRYPTION_KEY must be set in production (base64 of 32 random bytes).');
  }
  const file = path.join(config.dataDir, 'secrets.key');
  if (!existsSync(file)) {
    mkdirSync(config.dataDir, { recursive: true });
    try {
      writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      // Another process created it first; use theirs.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold the base64 of 32 bytes.`);
  return key;
}
