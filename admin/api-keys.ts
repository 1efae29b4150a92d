import { generateApiKey } from '../domain/api-key';
import { isRole, isScope, type Role, type Scope } from '../domain/scopes';
import type { Repositories } from '../db/repositories';
import type { ApiKeyRecord } from '../db/repositories/api-keys';
import { AdminInputError } from './create-company';

export type CreateApiKeyInput = {
  prefix: string;
  name?: string;
  scopes: string[];
  role?: string;
  /** null or absent: every company, including ones created later. */
  companyIds?: number[] | null;
};

export type CreatedApiKey = { record: ApiKeyRecord; fullKey: string };

export async function createApiKey(repositories: Repositories, input: CreateApiKeyInput): Promise<CreatedApiKey> {
  const unknownScopes = input.scopes.filter((scope) => !isScope(scope));
  if (unknownScopes.length > 0) throw new AdminInputError(`Unknown scope(s): ${unknownScopes.join(', ')}.`);
  const role = input.role ?? 'member';
  if (!isRole(role)) throw new AdminInputError(`--role must be admin or member, got "${role}".`);
  const companyIds = input.companyIds ?? null;
  if (companyIds) {
    const existing = new Set(await repositories.companies.existingIds(companyIds));
    const missing = companyIds.filter((id) => !existing.has(id));
    if (missing.length > 0) throw new AdminInputError(`No company with id ${missing.join(', ')}.`);
  }
  const generated = generateApiKey(input.prefix);
  const record = await repositories.apiKeys.insert({
    id: generated.keyId,
    name: input.name?.trim() || 'API key',
    prefix: generated.prefix,
    secretHash: generated.secretHash,
    scopes: [...new Set(input.scopes)] as Scope[],
    role: role as Role,
    companyIds: companyIds ? [...new Set(companyIds)] : null,
  });
  return { record, fullKey: generated.fullKey };
}

export async function revokeApiKey(repositories: Repositories, keyId: string): Promise<ApiKeyRecord> {
  const record = await repositories.apiKeys.revoke(keyId);
  if (!record) throw new AdminInputError(`No API key with id ${keyId}.`);
  return record;
}

export function presentApiKey(record: ApiKeyRecord) {
  return {
    id: record.id,
    name: record.name,
    prefix: record.prefix,
    scopes: record.scopes,
    role: record.role,
    companies: record.access.allCompanies ? 'all' : record.access.companyIds,
    created_at: record.createdAt.toISOString(),
    revoked_at: record.revokedAt ? record.revokedAt.toISOString() : null,
  };
}
