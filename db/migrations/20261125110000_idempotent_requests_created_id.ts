import type { Knex } from 'knex';

/**
 * The id a kept 201 answer created (idempotent_requests.created_id): deleting that resource
 * forgets the answer (idempotentRequests.forgetCreation), so a retry with the key creates anew
 * instead of replaying the id of something that no longer exists.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotent_requests', (t) => {
    t.text('created_id');
    t.index(['request_line', 'created_id']);
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
