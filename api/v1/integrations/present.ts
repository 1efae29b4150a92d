import type { IntegrationOut } from './schemas';
import type { IntegrationRow } from '../../../db/repositories/integrations';

/** An integration as the API shows it: never its credentials. */
export function presentIntegration(row: IntegrationRow): IntegrationOut {
  return {
    id: row.id,
    company_id: row.company_id,
    name: row.name,
    provider: row.provider,
    settings: row.settings,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
