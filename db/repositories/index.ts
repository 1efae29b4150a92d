import type { Database } from '../connection';
import { createApiKeysRepository } from './api-keys';
import { createCompaniesRepository } from './companies';
import { createContactsRepository } from './contacts';
import { createDocumentsRepository } from './documents';
import { createImportsRepository } from './imports';
import { createUploadedFilesRepository } from './uploaded-files';
import { createEventsRepository } from './events';
import { createWebhookDeliveriesRepository } from './webhook-deliveries';
import { createWebhookEndpointsRepository } from './webhook-endpoints';
import { createIntegrationsRepository } from './integrations';
import { createExportsRepository } from './exports';
import { createDianSettingsRepository } from './dian-settings';
import { createDianEventsRepository } from './dian-events';
import { createDianImportsRepository } from './dian-imports';
import { createEmailMessagesRepository } from './email-messages';
import { createDianRegisteredEventsRepository } from './dian-registered-events';
import { createUnfinishedWorkRepository } from './unfinished-work';
import { createIdempotentRequestsRepository } from './idempotent-requests';

function createRepositorySet(db: Database) {
  return {
    companies: createCompaniesRepository(db),
    apiKeys: createApiKeysRepository(db),
    events: createEventsRepository(db),
    contacts: createContactsRepository(db),
    documents: createDocumentsRepository(db),
    uploadedFiles: createUploadedFilesRepository(db),
    imports: createImportsRepository(db),
    webhookEndpoints: createWebhookEndpointsRepository(db),
    webhookDeliveries: createWebhookDeliveriesRepository(db),
    integrations: createIntegrationsRepository(db),
    exports: createExportsRepository(db),
    dianSettings: createDianSettingsRepository(db),
    dianEvents: createDianEventsRepository(db),
    dianImports: createDianImportsRepository(db),
    emailMessages: createEmailMessagesRepository(db),
    dianRegisteredEvents: createDianRegisteredEventsRepository(db),
    unfinishedWork: createUnfinishedWorkRepository(db),
    idempotentRequests: createIdempotentRequestsRepository(db),
  };
}

/** The repositories bound to one connection pool, or to one transaction. */
export type RepositorySet = ReturnType<typeof createRepositorySet>;

export function createRepositories(db: Database) {
  return {
    ...createRepositorySet(db),
    /** Runs `work` with the repositories bound to one transaction: its writes all land, or none does. */
    inTransaction<T>(work: (repositories: RepositorySet) => Promise<T>): Promise<T> {
      return db.transaction((trx) => work(createRepositorySet(trx)));
    },
  };
}

export type Repositories = ReturnType<typeof createRepositories>;
