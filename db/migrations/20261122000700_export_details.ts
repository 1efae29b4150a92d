import type { Knex } from 'knex';

/**
 * Exports (docs/exports.md): whether an export was forced over an existing one, and at most one
 * pending export per document (the API answers 409 export_in_progress on the unique violation,
 * so two concurrent requests cannot both start a posting).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('exports', (t) => {
    t.boolean('forced').notNullable().defaultTo(false);
  });
  await knex.raw(`ALTER TABLE exports ADD CONSTRAINT exports_status CHECK (status IN ('pending', 'succeeded', 'failed'))`);
  await knex.raw(`CREATE UNIQUE INDEX exports_one_pending ON exports (document_id) WHERE status = 'pending'`);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
