import type { Knex } from 'knex';

/**
 * What an import did with each document of an uploaded file: documents it created point back
 * through documents.imported_file_id; the ones it skipped (CUFE already stored) are listed
 * here. E-mailed files keep the blob key of the raw message they came in.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('uploaded_files', (t) => {
    t.jsonb('skipped').notNullable().defaultTo('[]');
    t.text('source_message_key');
    t.timestamp('processed_at', { useTz: true });
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
