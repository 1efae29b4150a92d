import type { Knex } from 'knex';

/**
 * The hourly purge of answers past their 24 hours (purgeIdempotentRequestsWorkflow) looks across
 * every API key; the (api_key_id, created_at) index serves only one key's expiry.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotent_requests', (t) => {
    t.index(['created_at']);
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
