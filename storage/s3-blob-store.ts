import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, NoSuchKey, NotFound, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertSafeKey, BlobNotFoundError, contentDisposition, SIGNED_URL_TTL_SECONDS, type BlobStore, type DownloadOptions } from './blob-store';

export type S3Settings = { bucket: string; region: string; endpoint?: string; forcePathStyle: boolean };

/** S3 (or MinIO with path-style addressing); downloads are presigned GETs valid for one hour. */
export class S3BlobStore implements BlobStore {
  readonly driver = 's3' as const;
  private readonly client: S3Client;

  constructor(private readonly settings: S3Settings, client?: S3Client) {
    this.client =
      client ??
      new S3Client({ region: settings.region, endpoint: settings.endpoint, forcePathStyle: settings.forcePathStyle });
  }

  async put(key: string, data: Buffer, contentType: string): Promise<void> {
    assertSafeKey(key);
    await this.client.send(new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: data, ContentType: contentType }));
  }

  async putFile(key: string, filePath: string, contentType: string): Promise<void> {
    assertSafeKey(key);
    const { size } = await stat(filePath);
    const body = createReadStream(filePath);
    await this.client.send(
      new PutObjectCommand({ Bucket: this.settings.bucket, Key: key, Body: body, ContentLength: size, ContentType: contentType }),
    );
  }

  async get(key: string): Promise<Buffer> {
    assertSafeKey(key);
    try {
      const result = await this.client.send(new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return Buffer.from(await result.Body!.transformToByteArray());
    } catch (error) {
      if (error instanceof NoSuchKey || error instanceof NotFound) throw new BlobNotFoundError(key);
      throw error;
    }
  }

  async exists(key: string): Promise<boolean> {
    assertSafeKey(key);
    try {
      await this.client.send(new HeadObjectCommand({ Bucket: this.settings.bucket, Key: key }));
      return true;
    } catch (error) {
      if (error instanceof NotFound || (error as { name?: string }).name === 'NotFound') return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    assertSafeKey(key);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }));
  }

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
