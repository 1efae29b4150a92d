import type { Knex } from 'knex';

/**
 * `invoicing operations reconcile` lists every company's unfinished work older than a few
 * minutes (pending deliveries, exports and DIAN events, unfinished DIAN import runs), oldest
 * first: small partial indexes on creation time, as uploaded_files_unfinished does for uploads.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (created_at) WHERE status = 'pending'`);
  await knex.raw(`CREATE INDEX exports_pending ON exports (created_at) WHERE status = 'pending'`);
  await knex.raw(`CREATE INDEX dian_events_pending ON dian_events (created_at) WHERE status = 'pending'`);
  await knex.raw(`CREATE INDEX dian_imports_unfinished ON dian_imports (created_at) WHERE status IN ('PENDING', 'PROCESSING')`);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
