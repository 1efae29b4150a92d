import type { Knex } from 'knex';

/**
 * Resending failed deliveries (POST …/deliveries/{id}/retry, POST …/recover) and filtering the
 * delivery history:
 * - resend_of: a resend is a new delivery of the same event to the same endpoint; it names the
 *   failed delivery it resends. At most one resend per delivery (what makes recover idempotent),
 *   so (endpoint_id, event_id) is unique only among original deliveries.
 * - event_type: the event's type, copied on the delivery so the history filters on an index.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.bigInteger('resend_of').references('webhook_deliveries.id').onDelete('SET NULL');
    t.text('event_type');
  });
  await knex.raw('UPDATE webhook_deliveries d SET event_type = e.type FROM events e WHERE e.id = d.event_id');

  await knex.raw('CREATE UNIQUE INDEX webhook_deliveries_one_resend ON webhook_deliveries (resend_of) WHERE resend_of IS NOT NULL');
  await knex.raw('CREATE UNIQUE INDEX webhook_deliveries_original ON webhook_deliveries (endpoint_id, event_id) WHERE resend_of IS NULL');
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.dropUnique(['endpoint_id', 'event_id']);
  });
  // The history's filters, newest first (ids grow with creation); since pages on the id index.
  await knex.raw('CREATE INDEX webhook_deliveries_endpoint_status_page ON webhook_deliveries (endpoint_id, status, id DESC)');
  await knex.raw('CREATE INDEX webhook_deliveries_endpoint_type_page ON webhook_deliveries (endpoint_id, event_type, id DESC)');
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
