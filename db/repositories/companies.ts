import { randomBytes } from 'node:crypto';
import type { Database } from '../connection';
import type { CompanyAccess } from '../../domain/company-access';
import { columnsOf } from '../columns';
import { PREPARED, postgresIntArray } from '../prepared-statement';

export type CompanyRow = {
  id: number;
  name: string;
  nit: string;
  dv: string;
  person_type: string;
  /** Local part of the company's inbox address (docs/email-intake.md); unique, lowercase. */
  inbox_token: string;
  created_at: Date;
  updated_at: Date;
};

export const COMPANY_COLUMNS = columnsOf<CompanyRow>({ id: true, name: true, nit: true, dv: true, person_type: true, inbox_token: true, created_at: true, updated_at: true });

export type NewCompany = { name: string; nit: string; dv: string; personType?: string };

export function createCompaniesRepository(db: Database) {
  /** Every read goes through the key's company access, so forgetting the tenant is impossible. */
  function visibleTo(access: CompanyAccess) {
    const query = db<CompanyRow>('companies').select(COMPANY_COLUMNS);
    // One array parameter, not a list of them: one statement text whatever the key's company count.
    if (!access.allCompanies) query.whereRaw('id = ANY(?::bigint[])', [postgresIntArray(access.companyIds)]);
    return query;
  }

  return {
    async insert(company: NewCompany): Promise<CompanyRow> {
      const [row] = await db<CompanyRow>('companies')
        .insert({ name: company.name, nit: company.nit, dv: company.dv, person_type: company.personType ?? 'LEGAL', inbox_token: newInboxToken() })
        .returning('*');
      return row;
    },

    /** The company an inbox address belongs to (no tenant check: the SMTP intake has no key). */
    async findByInboxToken(token: string): Promise<CompanyRow | undefined> {
      return db<CompanyRow>('companies').where({ inbox_token: token.toLowerCase() }).first();
    },

    listVisible(access: CompanyAccess): Promise<CompanyRow[]> {
      return visibleTo(access).orderBy('id', 'asc');
    },

    /** Every authenticated request to a company's resources: prepared. */
    async findVisible(access: CompanyAccess, id: number): Promise<CompanyRow | undefined> {
      return visibleTo(access).where({ id }).first().options(PREPARED);
    },

    async existingIds(ids: number[]): Promise<number[]> {
      const rows = await db('companies').whereIn('id', ids).select<{ id: number }[]>('id');
      return rows.map((row) => row.id);
    },

    async count(): Promise<number> {
      const [{ count }] = await db('companies').count<{ count: number }[]>({ count: '*' });
      return Number(count);
    },
  };
}

/** 20 lowercase hex characters: 80 bits from the OS CSPRNG, so inbox addresses cannot be guessed. */
function newInboxToken(): string {
  return randomBytes(10).toString('hex');
}

export type CompaniesRepository = ReturnType<typeof createCompaniesRepository>;
