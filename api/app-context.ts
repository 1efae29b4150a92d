import type { Logger } from 'pino';
import type { Connection, Client } from '@temporalio/client';
import type { AppConfig } from '../config';
import { loadMasterKey } from '../config/master-key';
import type { Database } from '../db/connection';
import { createRepositories, type Repositories } from '../db/repositories';
import { deriveKey, SecretBox } from '../domain/secret-box';
import type { BlobStore } from '../storage/blob-store';
import { createBlobStore } from '../storage/create-blob-store';
import { createDocumentFiles, type DocumentFiles } from '../services/link-document-files';
import { producePdfInPool } from '../services/cpu/pool';

/** What the HTTP layer is built over; tests pass their own. */
export type ApiDependencies = {
  config: AppConfig;
  db: Database;
  repositories: Repositories;
  temporal: { connection: Connection; client: Client };
  logger: Logger;
  /** Seals secrets at rest (webhook secrets). */
  secretBox: SecretBox;
  /** Signs pagination cursors. */
  cursorKey: Buffer;
  /** Keys the fingerprints of idempotent requests (api/middleware/idempotent-requests.ts). */
  requestFingerprintKey: Buffer;
  blobStore: BlobStore;
  documentFiles: DocumentFiles;
  /** The API's public URL (PUBLIC_BASE_URL, else the address it listens on), known once it listens. */
  publicBaseUrl: () => string;
};

export function buildApiDependencies(
  config: AppConfig,
  db: Database,
  temporal: ApiDependencies['temporal'],
  logger: Logger,
  /** The API's public URL, known once it listens; filesystem download links point at it. */
  publicBaseUrl: () => string,
): ApiDependencies {
  const masterKey = loadMasterKey(config);
  const repositories = createRepositories(db);
  const blobStore = createBlobStore(config, masterKey, publicBaseUrl);
  return {
    config,
    db,
    repositories,
    temporal,
    logger,
    secretBox: new SecretBox(masterKey),
    cursorKey: deriveKey(masterKey, 'pagination-cursor/v1'),
    requestFingerprintKey: deriveKey(masterKey, 'idempotent-request/v1'),
    blobStore,
    documentFiles: createDocumentFiles({ blobStore, documents: repositories.documents, producePdf: producePdfInPool, logger }),
    publicBaseUrl,
  };
}
