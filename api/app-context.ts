import type { Logger } from 'pino';
import type { Connection, Client } from '@temporalio/client';
import type { AppConfig } from '../config';
import type { Database } from '../db/connection';
import type { Repositories } from '../db/repositories';

/** What the HTTP layer is built over; tests pass their own. */
export type ApiDependencies = {
  config: AppConfig;
  db: Database;
  repositories: Repositories;
  temporal: { connection: Connection; client: Client };
  logger: Logger;
};
