import type { Knex } from 'knex';

/**
 * The unstarted-deliveries repair (services/repair-unstarted-deliveries.ts) pages through every
 * company's pending deliveries that have no attempt yet, in id order (keyset pages; ids follow
 * creation, and an id is exact where a timestamp read into JavaScript loses its microseconds).
 * webhook_deliveries_pending covers every pending delivery, including those waiting hours for a
 * retry while their endpoint is down; this partial index holds only the few not yet attempted, so the age condition
 * filters a handful of rows.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX webhook_deliveries_unstarted ON webhook_deliveries (id) WHERE status = 'pending' AND attempts = 0`);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
