import type { Database } from '../connection';
import type { CompanyAccess } from '../../domain/company-access';

export type ContactRow = {
  id: number;
  company_id: number;
  id_type: string;
  id_number: string;
  dv: string | null;
  name: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  city: string | null;
  country_code: string | null;
  created_at: Date;
  updated_at: Date;
};

export type ContactData = Omit<ContactRow, 'id' | 'company_id' | 'created_at' | 'updated_at'>;

export function createContactsRepository(db: Database) {
  return {
    async findVisible(access: CompanyAccess, id: number): Promise<ContactRow | undefined> {
      const query = db<ContactRow>('contacts').where({ id });
      if (!access.allCompanies) query.whereIn('company_id', access.companyIds);
      return query.first();
    },

    listForCompany(companyId: number, limit: number, beforeId?: number): Promise<ContactRow[]> {
      const query = db<ContactRow>('contacts').where({ company_id: companyId }).orderBy('id', 'desc').limit(limit);
      if (beforeId !== undefined) query.where('id', '<', beforeId);
      return query;
    },

    async insert(companyId: number, contact: ContactData): Promise<ContactRow> {
      const [row] = await db<ContactRow>('contacts').insert({ company_id: companyId, ...contact }).returning('*');
      return row;
    },
  };
}

export type ContactsRepository = ReturnType<typeof createContactsRepository>;
