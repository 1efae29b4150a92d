import type { Database } from '../connection';
import type { CompanyAccess } from '../../domain/company-access';
import type { Role, Scope } from '../../domain/scopes';
import { columnsOf, qualified } from '../columns';
import { PREPARED } from '../prepared-statement';
import { COMPANY_COLUMNS, type CompanyRow } from './companies';

export type ApiKeyRecord = {
  id: string;
  name: string;
  prefix: string;
  secretHash: Buffer;
  scopes: Scope[];
  role: Role;
  access: CompanyAccess;
  createdAt: Date;
  revokedAt: Date | null;
};

export type NewApiKey = {
  id: string;
  name: string;
  prefix: string;
  secretHash: Buffer;
  scopes: Scope[];
  role: Role;
  companyIds: number[] | null;
};

/** A key row with its company ids, as the lookup query returns it. */
export type ApiKeyRow = {
  id: string;
  name: string;
  prefix: string;
  secret_hash: Buffer;
  scopes: string[];
  role: string;
  all_companies: boolean;
  created_at: Date;
  revoked_at: Date | null;
  company_ids: (number | null)[];
};

const KEY_COLUMNS = qualified(
  'k',
  columnsOf<Omit<ApiKeyRow, 'company_ids'>>({ id: true, name: true, prefix: true, secret_hash: true, scopes: true, role: true, all_companies: true, created_at: true, revoked_at: true }),
);

/** The requested company's columns, prefixed so they cannot collide with the key's. */
const REQUESTED_COMPANY_PREFIX = 'requested_company__';
const REQUESTED_COMPANY_COLUMNS = COMPANY_COLUMNS.map((column) => `co.${column} AS ${REQUESTED_COMPANY_PREFIX}${column}`);

/** A key and the company a request names: the company only when it exists and the key may see it. */
export type ApiKeyWithCompany = { key: ApiKeyRecord; company: CompanyRow | undefined };

export function createApiKeysRepository(db: Database) {
  /** The key with the companies it may see, grouped into one row. */
  const keyLookup = (id: string) =>
    db('api_keys as k')
      .leftJoin('api_key_companies as c', 'c.api_key_id', 'k.id')
      .where('k.id', id)
      .groupBy('k.id');
  const companyIds = () => db.raw('coalesce(array_agg(c.company_id ORDER BY c.company_id), ARRAY[]::bigint[]) AS company_ids');

  return {
    async insert(key: NewApiKey): Promise<ApiKeyRecord> {
      await db.transaction(async (trx) => {
        await trx('api_keys').insert({
          id: key.id,
          name: key.name,
          prefix: key.prefix,
          secret_hash: key.secretHash,
          scopes: key.scopes,
          role: key.role,
          all_companies: key.companyIds === null,
        });
        if (key.companyIds && key.companyIds.length > 0) {
          await trx('api_key_companies').insert(
            key.companyIds.map((companyId) => ({ api_key_id: key.id, company_id: companyId })),
          );
        }
      });
      const stored = await this.findById(key.id);
      if (!stored) throw new Error(`API key ${key.id} vanished right after insert`);
      return stored;
    },

    /** One round trip per authenticated request (prepared): the key and the companies it may see. */
    async findById(id: string): Promise<ApiKeyRecord | undefined> {
      const row = await keyLookup(id).first<ApiKeyRow | undefined>(...KEY_COLUMNS, companyIds()).options(PREPARED);
      return row ? toRecord(row) : undefined;
    },

    /**
     * The key and, in the same round trip, the company a request to /companies/:id names (one
     * statement instead of two for every company-scoped request). The join carries the key's
     * company access, as findVisible's read does: a company the key may not see comes back as
     * none, exactly like one that does not exist.
     */
    async findWithCompany(id: string, companyId: number): Promise<ApiKeyWithCompany | undefined> {
      const row = await keyLookup(id)
        .leftJoin('companies as co', (join) =>
          join
            .on('co.id', db.raw('?::bigint', [companyId]))
            .andOn(db.raw('(k.all_companies OR EXISTS (SELECT 1 FROM api_key_companies AS v WHERE v.api_key_id = k.id AND v.company_id = co.id))')),
        )
        // companies.id is its primary key, so grouping by it lets the company's columns be selected.
        .groupBy('co.id')
        .first<(ApiKeyRow & RequestedCompanyColumns) | undefined>(...KEY_COLUMNS, companyIds(), ...REQUESTED_COMPANY_COLUMNS)
        .options(PREPARED);
      if (!row) return undefined;
      return { key: toRecord(row), company: requestedCompany(row) };
    },

    async revoke(id: string): Promise<ApiKeyRecord | undefined> {
      await db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
      return this.findById(id);
    },
  };
}

/** The requested company's columns in the key's row: all null when the join found none. */
type RequestedCompanyColumns = { [Column in keyof CompanyRow as `${typeof REQUESTED_COMPANY_PREFIX}${Column}`]: CompanyRow[Column] | null };

function requestedCompany(row: RequestedCompanyColumns): CompanyRow | undefined {
  if (row[`${REQUESTED_COMPANY_PREFIX}id`] === null) return undefined;
  return Object.fromEntries(COMPANY_COLUMNS.map((column) => [column, row[`${REQUESTED_COMPANY_PREFIX}${column}`]])) as CompanyRow;
}

function toRecord(row: ApiKeyRow): ApiKeyRecord {
  const companyIds = row.company_ids.filter((id): id is number => id !== null).map(Number);
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    secretHash: row.secret_hash,
    scopes: row.scopes as Scope[],
    role: row.role as Role,
    access: row.all_companies ? { allCompanies: true } : { allCompanies: false, companyIds },
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
