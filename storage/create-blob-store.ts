import type { AppConfig } from '../config';
import { deriveKey } from '../domain/secret-box';
import type { BlobStore } from './blob-store';
import { FilesystemBlobStore } from './filesystem-blob-store';
import type { S3BlobStore } from './s3-blob-store';

/** The blob store the configuration names; the filesystem one signs its URLs with a key derived from the master key. */
export function createBlobStore(config: AppConfig, masterKey: Buffer, publicBaseUrl: () => string): BlobStore {
  const settings = config.blobStore;
  if (settings.driver === 's3') {
    // Required here, not imported: the AWS SDK is about 20 MiB of RSS a filesystem store never uses.
    const s3 = require('./s3-blob-store') as { S3BlobStore: typeof S3BlobStore };
    return new s3.S3BlobStore(settings);
  }
  return new FilesystemBlobStore(settings.directory, deriveKey(masterKey, 'blob-url/v1'), publicBaseUrl);
}
