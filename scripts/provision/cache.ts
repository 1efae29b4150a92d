import os from 'node:os';
import path from 'node:path';

/**
 * Provisioned tools live outside the work tree so every clone on a machine (including
 * CI's fresh clones) reuses them. PROVISION_CACHE_DIR overrides the location.
 */
export function provisionCacheDir(): string {
  if (process.env.PROVISION_CACHE_DIR) return path.resolve(process.env.PROVISION_CACHE_DIR);
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'document-invoicing');
}
