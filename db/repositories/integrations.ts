import type { Database } from '../connection';
import { isUniqueViolation } from '../errors';

/** A company's accounting integration; credentials_encrypted holds SecretBox.seal(JSON credentials) as bytes. */
export type IntegrationRow = {
  id: number;
  company_id: number;
  name: string;
  provider: string;
  credentials_encrypted: Buffer | null;
  settings: Record<string, string>;
  created_at: Date;
  updated_at: Date;
};

export class IntegrationNameTakenError extends Error {}

export function createIntegrationsRepository(db: Database) {
  return {
    async insert(input: { companyId: number; name: string; provider: string; sealedCredentials: string; settings: Record<string, string> }): Promise<IntegrationRow> {
      try {
        const [row] = await db<IntegrationRow>('integrations')
          .insert({
            company_id: input.companyId,
            name: input.name,
            provider: input.provider,
            credentials_encrypted: Buffer.from(input.sealedCredentials, 'utf8'),
            settings: JSON.stringify(input.settings) as never,
          })
          .returning('*');
        return row;
      } catch (error) {
        if (isUniqueViolation(error)) throw new IntegrationNameTakenError(input.name);
        throw error;
      }
    },

    /** Newest first; `beforeId` continues after the last id of the previous page. */
    listForCompany(companyId: number, limit: number, beforeId?: number): Promise<IntegrationRow[]> {
      const query = db<IntegrationRow>('integrations').where({ company_id: companyId }).orderBy('id', 'desc').limit(limit);
      if (beforeId !== undefined) query.where('id', '<', beforeId);
      return query;
    },

    find(companyId: number, id: number): Promise<IntegrationRow | undefined> {
      return db<IntegrationRow>('integrations').where({ company_id: companyId, id }).first();
    },

    findByName(companyId: number, name: string): Promise<IntegrationRow | undefined> {
      return db<IntegrationRow>('integrations').where({ company_id: companyId, name }).first();
    },

    /** Exports keep the integration's name; a pending one whose integration is gone fails with integration_not_found. */
    async delete(companyId: number, id: number): Promise<boolean> {
      return (await db('integrations').where({ company_id: companyId, id }).delete()) > 0;
    },
  };
}

export type IntegrationsRepository = ReturnType<typeof createIntegrationsRepository>;
