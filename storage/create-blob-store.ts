import type { AppConfig } from '../config';
import { deriveKey } from '../domain/secret-box';
import type { BlobStore } from './blob-store';
import { FilesystemBlobStore } from './filesystem-blob-store';
import { S3BlobStore } from './s3-blob-store';

/** The blob store the configuration names; the filesystem one signs its URLs with a key derived from the master key. */
export function createBlobStore(config: AppConfig, masterKey: Buffer, publicBaseUrl: () => string): BlobStore {
  const settings = config.blobStore;
  if (settings.driver === 's3') return new S3BlobStore(settings);
  return new FilesystemBlobStore(settings.directory, deriveKey(masterKey, 'blob-url/v1'), publicBaseUrl);
}
