import type { Database } from '../connection';
import type { CompanyAccess } from '../../domain/company-access';
import type { Role, Scope } from '../../domain/scopes';
import { columnsOf, qualified } from '../columns';
import { PREPARED } from '../prepared-statement';

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

export function createApiKeysRepository(db: Database) {
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
      const row = await db('api_keys as k')
        .leftJoin('api_key_companies as c', 'c.api_key_id', 'k.id')
        .where('k.id', id)
        .groupBy('k.id')
        .first<ApiKeyRow | undefined>(
          ...KEY_COLUMNS,
          db.raw('coalesce(array_agg(c.company_id ORDER BY c.company_id), ARRAY[]::bigint[]) AS company_ids'),
        )
        .options(PREPARED);
      return row ? toRecord(row) : undefined;
    },

    async revoke(id: string): Promise<ApiKeyRecord | undefined> {
      await db('api_keys').where({ id }).whereNull('revoked_at').update({ revoked_at: db.fn.now() });
      return this.findById(id);
    },
  };
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
