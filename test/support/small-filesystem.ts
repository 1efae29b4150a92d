import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * A tmpfs of `size` (mount's syntax: '1m', '2m') mounted on a new folder, for tests of a full
 * disk; null where `mount` is not permitted (not root), and the caller's tests skip, saying so.
 */
export function mountSmallFilesystem(label: string, size: string): { directory: string; unmount(): void } | null {
  const directory = path.join(os.tmpdir(), `invoicing-${label}-${randomBytes(4).toString('hex')}`);
  try {
    mkdirSync(directory, { recursive: true });
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size},mode=0700`, 'tmpfs', directory], { stdio: 'ignore' });
  } catch {
    rmSync(directory, { recursive: true, force: true });
    console.log(`[faults] ${label}: skipped, \`mount -t tmpfs\` is not permitted here (run the suite as root)`);
    return null;
  }
  return {
    directory,
    unmount() {
      execFileSync('umount', [directory]);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** Writes `file` until its filesystem has no byte left. */
export async function fillTheDisk(file: string): Promise<void> {
  const handle = await open(file, 'w');
  const chunk = Buffer.alloc(16 * 1024, 1);
  try {
    for (;;) await handle.write(chunk);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    await handle.close();
  }
}
