import type { Database } from '../connection';
import { createApiKeysRepository } from './api-keys';
import { createCompaniesRepository } from './companies';

export function createRepositories(db: Database) {
  return {
    companies: createCompaniesRepository(db),
    apiKeys: createApiKeysRepository(db),
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
