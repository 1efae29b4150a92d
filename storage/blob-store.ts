/**
 * Where files live: the filesystem under the data folder (embedded default) or S3. Both give
 * clients a signed URL valid for one hour that needs no Authorization header.
 */
/**
 * `size`: the bytes the stored file must have, when the caller knows them (an upload's or an
 * original's recorded size): the filesystem store's download refuses a file that no longer has
 * them (truncated on disk) instead of serving it as if it were whole.
 */
export type DownloadOptions = { fileName: string; contentType: string; expiresInSeconds?: number; size?: number };

export interface BlobStore {
  readonly driver: 'filesystem' | 's3';
  put(key: string, data: Buffer, contentType: string): Promise<void>;
  /** Streams a local file into the store (large e-mailed messages never sit in memory). */
  putFile(key: string, filePath: string, contentType: string): Promise<void>;
  get(key: string): Promise<Buffer>;
  exists(key: string): Promise<boolean>;
  /** Removes the blob; a key that does not exist is not an error. */
  delete(key: string): Promise<void>;
  signedDownloadUrl(key: string, options: DownloadOptions): Promise<string>;
  /**
   * Proves the store can be used (GET /healthz): the filesystem store writes and removes a small
   * file in its directory, the S3 store asks for its bucket (HeadBucket), giving up after
   * `timeoutMs`. Throws what a write would throw (BlobStoreUnavailableError, BlobStoreFullError).
   */
  check(timeoutMs: number): Promise<void>;
}

export const SIGNED_URL_TTL_SECONDS = 3600;

export class BlobNotFoundError extends Error {}

/**
 * The blob store could not do what was asked for a reason of its own, not of the key: the
 * directory is not writable (EACCES, EPERM, EROFS), the process is out of file descriptors
 * (EMFILE, ENFILE), the disk failed (EIO), or the object store is unreachable, slow to the point
 * of timing out, answering 5xx, or refusing us (BlobStoreMisconfiguredError). Nothing was
 * stored; the same call can succeed once the store is back (docs/operations.md, Faults). `cause`
 * is the store's own error.
 */
export class BlobStoreUnavailableError extends Error {
  override readonly name: string = 'BlobStoreUnavailableError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/**
 * The object store answers, but refuses us for a reason an operator must fix, not wait out: our
 * credentials are unknown or their signature wrong, access to the bucket is denied, or the bucket
 * does not exist. Handled like any unavailability (503 to clients, imports retried, so the work
 * completes once the configuration is fixed), but its message names the bucket and what to fix,
 * and the API logs it as an error.
 */
export class BlobStoreMisconfiguredError extends BlobStoreUnavailableError {
  override readonly name = 'BlobStoreMisconfiguredError';
}

/** The blob store's disk, quota or object store is full (ENOSPC, EDQUOT, MinIO's XMinioStorageFull). */
export class BlobStoreFullError extends Error {
  override readonly name = 'BlobStoreFullError';
  constructor(message: string, options: { cause: unknown }) {
    super(message, options);
  }
}

/** Keys are our own: lowercase path segments, no traversal, no leading slash. */
const SAFE_KEY = /^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/;

export function assertSafeKey(key: string): void {
  if (!SAFE_KEY.test(key) || key.includes('..') || key.length > 512) throw new Error(`unsafe blob key ${JSON.stringify(key)}`);
}

/** A file name reduced to a safe key segment (the original name travels in Content-Disposition). */
export function keySegment(fileName: string): string {
  const cleaned = fileName
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[^a-z0-9]+/, '')
    .replace(/\.{2,}/g, '.')
    .slice(0, 100);
  return cleaned || 'file';
}

/** RFC 6266 attachment disposition with an ASCII fallback and the UTF-8 name. */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.normalize('NFKD').replace(/[^\x20-\x7e]/g, '').replace(/["\\]/g, '') || 'file';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
