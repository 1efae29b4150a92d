import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, NoSuchKey, NotFound, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { AppConfig } from '../config';
import {
  assertSafeKey,
  BlobNotFoundError,
  BlobStoreFullError,
  BlobStoreMisconfiguredError,
  BlobStoreUnavailableError,
  contentDisposition,
  SIGNED_URL_TTL_SECONDS,
  type BlobStore,
  type DownloadOptions,
} from './blob-store';
import { OperationDeadline } from './s3-operation-deadline';

export type S3Settings = Omit<Extract<AppConfig['blobStore'], { driver: 's3' }>, 'driver'>;

/** S3 (or MinIO with path-style addressing); downloads are presigned GETs valid for one hour. */
export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings, client?: S3Client) {
    this.client = client ?? s3ClientWithDeadlines(settings);
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    assertSafeKey(key);
    await this.send(
      `write ${key}`,
      ({ signal }) => this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: data, ContentType: contentType }), { abortSignal: signal }),
      { bytes: data.length },
    );
  }

  async putFile(key: string, filePath: string, contentType: string): Promise<void> {
    assertSafeKey(key);
    const { size } = await stat(filePath);
    const body = createReadStream(filePath);
    try {
      await this.send(
        `write ${key}`,
        ({ signal }) =>
          this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: body, ContentLength: size, ContentType: contentType }), { abortSignal: signal }),
        { bytes: size },
      );
    } finally {
      body.destroy(); // an abandoned write leaves the file open otherwise
    }
  }

  async get(key: string): Promise<Buffer> {
    assertSafeKey(key);
    try {
      return await this.send(`read ${key}`, async (deadline) => {
        const result = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }), { abortSignal: deadline.signal });
        deadline.allowFor(result.ContentLength ?? 0);
        return Buffer.from(await result.Body!.transformToByteArray());
      });
    } catch (error) {
      if (error instanceof BlobStoreUnavailableError && isNotFound(error.cause)) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    assertSafeKey(key);
    try {
      await this.send(`look up ${key}`, ({ signal }) => this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }), { abortSignal: signal }));
      return true;
    } catch (error) {
      if (error instanceof BlobStoreUnavailableError && isNotFound(error.cause)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.send(`delete ${key}`, ({ signal }) => this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }), { abortSignal: signal }));
  }

  /** HeadBucket, abandoned after timeoutMs (a frozen store must not pile up health probes). */
  async check(timeoutMs: number): Promise<void> {
    const bucket = JSON.stringify(this.settings.bucket);
    const deadline = AbortSignal.timeout(timeoutMs);
    try {
      await this.send(
        `reach bucket ${bucket}`,
        ({ signal }) => this.client.send(new HeadBucketCommand({ Bucket: this.settings.bucket }), { abortSignal: AbortSignal.any([signal, deadline]) }),
        { bucketLevel: true },
      );
    } catch (error) {
      if (!deadline.aborted) throw error;
      throw new BlobStoreUnavailableError(`The object store did not answer within ${timeoutMs} ms; could not reach bucket ${bucket}.`, { cause: error });
    }
  }

  /**
   * One call to the object store. Whatever fails it is the store's, not the key's (the callers
   * above tell a missing key apart): unreachable (ECONNREFUSED, a reset, a timeout) or answering
   * 5xx or SlowDown is BlobStoreUnavailableError (the API's 503); a full MinIO BlobStoreFullError
   * (507); a refusal an operator must fix (a 403: unknown access key, wrong secret, access denied;
   * a missing bucket) BlobStoreMisconfiguredError, which says what to fix. A raw ECONNREFUSED was
   * answered as "cannot reach its database", a 5xx as 500 internal_error, and a denied or missing
   * bucket read like an outage, "cannot be used right now". `bucketLevel`: the call names no key,
   * so a bare 404 (HeadBucket's) is the bucket's.
   *
   * The whole call, the wait for a socket and every attempt included, must end within its
   * OperationDeadline (`bytes`: the body it sends), which `call` hands to the SDK; one cut off is
   * BlobStoreUnavailableError too: a store that trickles is as unusable as a frozen one.
   */
  private async send<T>(what: string, call: (deadline: OperationDeadline) => Promise<T>, { bucketLevel = false, bytes = 0 } = {}): Promise<T> {
    const deadline = new OperationDeadline(this.settings.deadlines, bytes);
    try {
      return await deadline.race(call(deadline));
    } catch (error) {
      if (deadline.expired) {
        throw new BlobStoreUnavailableError(`The object store did not finish within ${deadline.allowedMs} ms (S3_OPERATION_TIMEOUT_MS, plus its bytes at S3_MIN_BYTES_PER_SECOND); could not ${what}.`, { cause: error });
      }
      const name = (error as { name?: string; Code?: string }).Code ?? (error as { name?: string }).name ?? 'Error';
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      // A HEAD answer has no body to name the error: the SDK calls it Unknown, the status says more.
      const code = (error as NodeJS.ErrnoException).code ?? (name === 'Unknown' ? undefined : name);
      const detail = [code, status ? `HTTP ${status}` : undefined].filter(Boolean).join(', ');
      if (name === 'XMinioStorageFull' || status === 507) {
        throw new BlobStoreFullError(`The object store is full (${name}); could not ${what}.`, { cause: error });
      }
      const misconfiguration = this.misconfiguration(name, status, bucketLevel);
      if (misconfiguration) {
        throw new BlobStoreMisconfiguredError(`${misconfiguration} (${detail}); could not ${what}.`, { cause: error });
      }
      throw new BlobStoreUnavailableError(`The object store cannot be used right now (${detail}); could not ${what}.`, { cause: error });
    } finally {
      deadline.clear();
    }
  }

  /** What an operator must fix, when the store's refusal is one of configuration (else null). */
  private misconfiguration(name: string, status: number | undefined, bucketLevel: boolean): string | null {
    const bucket = JSON.stringify(this.settings.bucket);
    if (name === 'NoSuchBucket' || (bucketLevel && status === 404)) return `The bucket ${bucket} does not exist in the object store: create it, or correct S3_BUCKET`;
    if (status !== 403) return null;
    if (name === 'InvalidAccessKeyId') return `The object store does not know our access key: correct AWS_ACCESS_KEY_ID (bucket ${bucket})`;
    if (name === 'SignatureDoesNotMatch') return `The object store rejects our signature: correct AWS_SECRET_ACCESS_KEY (bucket ${bucket})`;
    return `Access denied to bucket ${bucket}: check the credentials and the bucket's policy`;
  }

  // options.size is not signed into S3 URLs: an object is written whole or not at all.
  signedDownloadUrl(key: string, options: DownloadOptions): Promise<string> {
    assertSafeKey(key);
    const command = new GetObjectCommand({
      Bucket: this.settings.bucket,
      Key: key,
      ResponseContentType: options.contentType,
      ResponseContentDisposition: contentDisposition(options.fileName),
    });
    return getSignedUrl(this.client, command, { expiresIn: options.expiresInSeconds ?? SIGNED_URL_TTL_SECONDS });
  }
}

/**
 * The SDK's defaults have no deadline at all: a frozen store (SIGSTOP, a black-holed network)
 * held every upload, import and export that touched it for as long as it stayed frozen (measured:
 * a 15 s freeze, 15.2 s). Each attempt now gets a connection deadline and an idle one, no byte
 * sent or received for idleMs (Node's socket timeout), rather than a deadline on the whole request:
 * a 20 MB PUT to a slow but moving store still succeeds however long it takes. The SDK retries a
 * timed-out attempt (3 attempts unless AWS_MAX_ATTEMPTS says otherwise), so a frozen store is
 * reported, as BlobStoreUnavailableError, after about attempts × idleMs (an idle deadline of 6 s
 * or more starts 3 s late: the SDK defers it, so 10 s meant 39 s in all).
 */
function s3ClientWithDeadlines(settings: S3Settings): S3Client {
  return new S3Client({
    region: settings.region,
    endpoint: settings.endpoint,
    forcePathStyle: settings.forcePathStyle,
    requestHandler: { connectionTimeout: settings.deadlines.connectMs, socketTimeout: settings.deadlines.idleMs },
  });
}

function isNotFound(error: unknown): boolean {
  return error instanceof NoSuchKey || error instanceof NotFound || ['NotFound', 'NoSuchKey'].includes((error as { name?: string }).name ?? '');
}
