import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type { Stats } from 'node:fs';
import { copyFile, mkdir, open, readdir, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import {
  assertSafeKey,
  BlobNotFoundError,
  BlobStoreFullError,
  BlobStoreMisconfiguredError,
  BlobStoreUnavailableError,
  SIGNED_URL_TTL_SECONDS,
  type BlobStore,
  type DownloadOptions,
} from './blob-store';

/** `size`: the bytes the file must have, when the caller knows them (an original's recorded size). */
export type SignedBlobRequest = { key: string; expires: number; fileName: string; contentType: string; size?: number };

/**
 * Where writes are made before they are renamed into place: one folder under the store's
 * directory (same filesystem, so the rename is atomic), which no key can name (keys start with a
 * letter or digit). A process killed mid-write (kill -9, OOM) leaves its temporary file here, and
 * not beside the key where nothing would ever find it again.
 */
export const TEMPORARY_FOLDER = '.tmp';
/** A temporary file older than this is a dead process's: no write of a 20 MB file takes an hour. */
export const STALE_TEMPORARY_MS = 60 * 60 * 1000;

/** Errors of the filesystem that say nothing about the key: the store cannot work right now. */
const UNAVAILABLE_CODES = new Set(['EACCES', 'EPERM', 'EROFS', 'EMFILE', 'ENFILE', 'EIO', 'EAGAIN', 'EBUSY', 'ETIMEDOUT', 'ESTALE', 'ENOTCONN', 'EHOSTDOWN', 'ENODEV', 'ENXIO']);
const FULL_CODES = new Set(['ENOSPC', 'EDQUOT']);
/**
 * A file where the store expects a folder (BLOB_DIR itself, or a folder in it, made a file): no
 * key of ours names a file's child, so it is the store's directory an operator must correct.
 */
const NOT_A_FOLDER = 'ENOTDIR';

/**
 * Files under a directory; downloads go through the API's own GET /blobs/<key>, which serves
 * only requests carrying a valid, unexpired HMAC signature over key, expiry, name and type.
 */
export class FilesystemBlobStore implements BlobStore {
  readonly driver = 'filesystem' as const;
  /** When this process last removed stale temporary files (0: not yet). */
  private lastSweep = 0;

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
   * leaves nothing behind. A write now and then also removes the temporary files of processes
   * that died mid-write (sweepTemporaryFiles).
   */
  private async writeAtomically(key: string, write: (temporary: string) => Promise<void>): Promise<void> {
    const target = this.pathOf(key);
    const temporaryFolder = path.join(this.directory, TEMPORARY_FOLDER);
    const temporary = path.join(temporaryFolder, `${randomUUID()}.tmp`);
    try {
      try {
        // Folders are made when a write finds them missing, not before every write: two mkdir -p
        // per upload were 4.6 % of the API's CPU in an upload burst, and nearly every write goes
        // to a folder that exists (a company's uploads, the temporary folder).
        await retriedInNewFolder(temporaryFolder, () => write(temporary));
        await retriedInNewFolder(path.dirname(target), () => rename(temporary, target));
      } catch (error) {
        await rm(temporary, { force: true }).catch(() => undefined);
        throw error;
      }
    } catch (error) {
      throw storeError(error, `write ${key}`);
    }
    if (this.now() - this.lastSweep > STALE_TEMPORARY_MS) {
      this.lastSweep = this.now();
      void this.sweepTemporaryFiles().catch(() => undefined);
    }
  }

  /**
   * Removes temporary files older than STALE_TEMPORARY_MS (a killed process's partial writes);
   * returns how many. Done by the first write of each process and then at most once an hour.
   */
  async sweepTemporaryFiles(olderThanMs = STALE_TEMPORARY_MS): Promise<number> {
    const folder = path.join(this.directory, TEMPORARY_FOLDER);
    const names = await readdir(folder).catch(() => [] as string[]);
    let removed = 0;
    for (const name of names) {
      const file = path.join(folder, name);
      const info = await stat(file).catch(() => null);
      if (info?.isFile() && this.now() - info.mtimeMs > olderThanMs) {
        await rm(file, { force: true });
        removed += 1;
      }
    }
    return removed;
  }

  /**
   * Writes and removes a probe file in the temporary folder: the directory exists, is writable and
   * has room (a stat would pass on a read-only or full disk). timeoutMs is the caller's: a
   * filesystem call cannot be abandoned.
   */
  async check(): Promise<void> {
    const folder = path.join(this.directory, TEMPORARY_FOLDER);
    const probe = path.join(folder, `health-${randomUUID()}.tmp`);
    try {
      await makeFolder(folder);
      await writeFile(probe, 'ok');
      await rm(probe, { force: true });
    } catch (error) {
      await rm(probe, { force: true }).catch(() => undefined);
      const classified = storeError(error, `write in ${this.directory}`);
      if (classified instanceof BlobStoreFullError || classified instanceof BlobStoreUnavailableError) throw classified;
      // ENOENT, ENOTDIR…: said of a key they would be ours; said of the directory itself (BLOB_DIR
      // under a file, a volume not mounted), the store cannot be used.
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new BlobStoreUnavailableError(`The file store cannot write in its directory ${this.directory} (${code}): check BLOB_DIR and its volume.`, { cause: error });
    }
  }

  async get(key: string): Promise<Buffer> {
    try {
      return await readFile(this.pathOf(key));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new BlobNotFoundError(key);
      throw storeError(error, `read ${key}`);
    }
  }

  /**
   * The stored file opened for a download, with its stats; null when there is none (ENOENT). Opened
   * before anything is answered, so a store that cannot open it is the store's error (EMFILE,
   * EACCES: unavailable; ENOTDIR: misconfigured, see storeError), never a stream failing mid-answer.
   */
  async openStored(key: string): Promise<{ handle: FileHandle; info: Stats } | null> {
    let handle: FileHandle | null = null;
    try {
      handle = await open(this.pathOf(key), 'r');
      return { handle, info: await handle.stat() };
    } catch (error) {
      await handle?.close();
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      const classified = storeError(error, `read ${key}`);
      if (classified instanceof BlobStoreUnavailableError) throw classified;
      throw new BlobStoreUnavailableError(`The file store cannot be used right now (${(error as NodeJS.ErrnoException).code}); could not read ${key}.`, { cause: error });
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await stat(this.pathOf(key));
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return false;
      throw storeError(error, `look up ${key}`);
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await rm(this.pathOf(key), { force: true });
    } catch (error) {
      throw storeError(error, `delete ${key}`);
    }
  }

  async signedDownloadUrl(key: string, options: DownloadOptions): Promise<string> {
    assertSafeKey(key);
    const expires = Math.floor(this.now() / 1000) + (options.expiresInSeconds ?? SIGNED_URL_TTL_SECONDS);
    const request: SignedBlobRequest = { key, expires, fileName: options.fileName, contentType: options.contentType, size: options.size };
    const query = new URLSearchParams({
      expires: String(expires),
      name: options.fileName,
      type: options.contentType,
      ...(options.size === undefined ? {} : { size: String(options.size) }),
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

  /** A URL signed before sizes were (or for a file of unknown size) signs the four fields alone, and stays valid. */
  private sign(request: SignedBlobRequest): string {
    const fields: (string | number)[] = [request.key, request.expires, request.fileName, request.contentType];
    if (request.size !== undefined) fields.push(`size=${request.size}`);
    return createHmac('sha256', this.signingKey).update(fields.join('\n'), 'utf8').digest('base64url');
  }
}

/**
 * mkdir -p that reports the real reason it failed: Node's recursive mkdir answers ENOENT when a
 * missing level cannot be created on a read-only filesystem (EROFS) or in a folder it may not write
 * (EACCES), which would read as a bug of ours; the level it stopped at is tried alone for its error.
 */
async function makeFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    let missing = folder;
    while (path.dirname(missing) !== missing && !(await stat(path.dirname(missing)).then(() => true, () => false))) missing = path.dirname(missing);
    await mkdir(missing); // throws EROFS, EACCES … (or, created meanwhile, lets the retry below finish)
    await mkdir(folder, { recursive: true });
  }
}

/** Runs `step`; when it fails because `folder` is missing (ENOENT), makes the folder and runs it once more. */
async function retriedInNewFolder(folder: string, step: () => Promise<void>): Promise<void> {
  try {
    await step();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await makeFolder(folder);
    await step();
  }
}

/** The filesystem's error as the store reports it: full, unavailable, or (a bug of ours: a bad path) as it is. */
function storeError(error: unknown, what: string): unknown {
  if (error instanceof BlobNotFoundError || error instanceof BlobStoreFullError || error instanceof BlobStoreUnavailableError) return error;
  const code = (error as NodeJS.ErrnoException | null)?.code ?? '';
  if (FULL_CODES.has(code)) return new BlobStoreFullError(`The file store is full (${code}); could not ${what}.`, { cause: error });
  if (UNAVAILABLE_CODES.has(code)) return new BlobStoreUnavailableError(`The file store cannot be used right now (${code}); could not ${what}.`, { cause: error });
  // Until 2026-11-25 this was a 500 internal_error to every upload and on-demand PDF, and a failed
  // read that an import counted among its own attempts, though nothing of the request was at fault.
  if (code === NOT_A_FOLDER) return new BlobStoreMisconfiguredError(`The file store's directory, or a folder in it, is a file (${code}): check BLOB_DIR; could not ${what}.`, { cause: error });
  return error;
}
