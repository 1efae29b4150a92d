import type { Knex } from 'knex';

/**
 * Each claim of an Idempotency-Key gets a token of its own (idempotentRequests.claim and
 * takeOverAbandoned), and renewing, keeping the answer and releasing need it: a process frozen
 * past the abandonment limit and then resumed could otherwise renew, answer for or delete a claim
 * another request had taken over meanwhile. Rows claimed before have none; a claim without a
 * token is taken over like any abandoned one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('idempotent_requests', (t) => {
    t.uuid('claim_token');
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
