import type { Knex } from 'knex';

/** The reconciliation job looks for uploads whose import never started or never finished. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE INDEX uploaded_files_unfinished ON uploaded_files (created_at) WHERE status IN ('PENDING', 'PROCESSING')`);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
