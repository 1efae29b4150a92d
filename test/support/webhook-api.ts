import { jsonClient, seedCompany, seedKey } from './api';
import type { TestDatabase } from './database';

/** A company and an admin key with webhooks:manage, and a small JSON client for the API at apiUrl. */
export async function webhookAdmin(database: TestDatabase, apiUrl: string) {
  const company = await seedCompany(database, 'Webhooks S.A.S.', String(800_000_000 + Math.floor(Math.random() * 99_999_999)));
  const { key } = await seedKey(database, { scopes: ['webhooks:manage'], role: 'admin' });
  const call = jsonClient(apiUrl, key);
  async function createEndpoint(url: string, events: string[] = []): Promise<{ id: number; secret: string }> {
    const created = await call('POST', `/v1/companies/${company.id}/webhooks`, { url, events });
    if (created.status !== 201) throw new Error(`endpoint not created: ${JSON.stringify(created.body)}`);
    return { id: created.body!.id, secret: created.body!.secret };
  }
  return { company, key, call, createEndpoint };
}
