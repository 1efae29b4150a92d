import type { Logger } from 'pino';
import type { Connection, Client } from '@temporalio/client';
import type { AppConfig } from '../config';
import { loadMasterKey } from '../config/master-key';
import type { Database } from '../db/connection';
import { createRepositories, type Repositories } from '../db/repositories';
import { deriveKey, SecretBox } from '../domain/secret-box';

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
};

export function buildApiDependencies(
  config: AppConfig,
  db: Database,
  temporal: ApiDependencies['temporal'],
  logger: Logger,
): ApiDependencies {
  const masterKey = loadMasterKey(config);
  return {
    config,
    db,
    repositories: createRepositories(db),
    temporal,
    logger,
    secretBox: new SecretBox(masterKey),
    cursorKey: deriveKey(masterKey, 'pagination-cursor/v1'),
  };
}
