import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { assertSafeKey, BlobNotFoundError, SIGNED_URL_TTL_SECONDS, type BlobStore, type DownloadOptions } from './blob-store';

export type SignedBlobRequest = { key: string; expires: number; fileName: string; contentType: string };

/**
 * Files under a directory; downloads go through the API's own GET /blobs/<key>, which serves
 * only requests carrying a valid, unexpired HMAC signature over key, expiry, name and type.
 */
export class FilesystemBlobStore implements BlobStore {
  readonly driver = 'filesystem' as const;

  constructor(
    private readonly directory: string,
    private readonly signingKey: Buffer,
    private readonly publicBaseUrl: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  pathOf(key: string): string {
    assertSafeKey(key);
    return path.join(this.directory, ...key.split('/'));
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.writeAtomically(key, (temporary) => writeFile(temporary, data));
  }

  async putFile(key: string, filePath: string): Promise<void> {
    await this.writeAtomically(key, (temporary) => copyFile(filePath, temporary));
  }

  /**
   * Write then rename, so a reader never sees half a file; concurrent writers of one key
   * (idempotent uploads) each have their own temporary file, and a failed write (ENOSPC)
   * leaves nothing behind.
   */
  private async writeAtomically(key: string, write: (temporary: string) => Promise<void>): Promise<void> {
    const target = this.pathOf(key);
    await mkdir(path.dirname(target), { recursive: true });
    const temporary = `${target}.${randomUUID()}.tmp`;
    try {
      await write(temporary);
      await rename(temporary, target);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    return stat(this.pathOf(key)).then(() => true, () => false);
  }

  async delete(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async signedDownloadUrl(key: string, options: DownloadOptions): Promise<string> {
    assertSafeKey(key);
    const expires = Math.floor(this.now() / 1000) + (options.expiresInSeconds ?? SIGNED_URL_TTL_SECONDS);
    const request = { key, expires, fileName: options.fileName, contentType: options.contentType };
    const query = new URLSearchParams({
      expires: String(expires),
      name: options.fileName,
      type: options.contentType,
      signature: this.sign(request),
    });
    return `${this.publicBaseUrl()}/blobs/${key}?${query.toString()}`;
  }

  /** 'ok', or why the request is refused. */
  verify(request: SignedBlobRequest, signature: string): 'ok' | 'expired' | 'invalid' {
    const expected = Buffer.from(this.sign(request));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return 'invalid';
    if (request.expires * 1000 < this.now()) return 'expired';
    return 'ok';
  }

  private sign(request: SignedBlobRequest): string {
    return createHmac('sha256', this.signingKey)
      .update([request.key, request.expires, request.fileName, request.contentType].join('\n'), 'utf8')
      .digest('base64url');
  }
}
