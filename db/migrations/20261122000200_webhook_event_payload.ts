import type { Knex } from 'knex';

/**
 * The exact bytes of an event's delivery body, rendered once when the event is recorded, so every
 * attempt signs and sends the same body (created_at with microseconds from Postgres' clock).
 * Plus the index the deliveries list pages on.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('events', (t) => {
    t.text('payload');
  });
  // Deliveries are listed newest first by id (ids grow with creation), 30 days at most.
  await knex.raw('CREATE INDEX webhook_deliveries_endpoint_id_page ON webhook_deliveries (endpoint_id, id DESC)');
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
