import type { AppConfig } from '../config';
import type { Repositories } from '../db/repositories';
import { createCompany } from '../admin/create-company';
import { createApiKey, presentApiKey } from '../admin/api-keys';
import { presentCompany } from '../services/presenters/company';
import { SCOPES } from '../domain/scopes';
import { seedDemoDocuments } from '../admin/demo-documents';
import type { BlobStore } from '../storage/blob-store';

export const DEMO_COMPANY = { name: 'Demo Compras S.A.S.', nit: '900108281' };

/**
 * On an empty database only: a demo company with one document of every kind (originals in the
 * blob store) and an admin key with every scope, to try the API at once.
 */
export async function seedDemoOnFirstRun(repositories: Repositories, blobStore: BlobStore, config: AppConfig) {
  if ((await repositories.companies.count()) > 0) return null;
  const company = await createCompany(repositories, DEMO_COMPANY);
  await seedDemoDocuments({ repositories, blobStore }, company);
  const key = await createApiKey(repositories, {
    prefix: config.apiKeyPrefix,
    name: 'Demo admin key',
    scopes: [...SCOPES],
    role: 'admin',
    companyIds: null,
  });
  return { company: presentCompany(company, config.email.domain), api_key: { ...presentApiKey(key.record), key: key.fullKey } };
}
