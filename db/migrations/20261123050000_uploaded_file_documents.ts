import type { Knex } from 'knex';

/**
 * Which documents each uploaded file contains. A document's imported_file_id stays the first
 * file it came from; a file re-imported later (its documents already stored) still lists them,
 * in its Uploaded file record and in its document.imported event. Backfilled from the documents
 * each file created and from the documents it skipped (uploaded_files.skipped).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('uploaded_file_documents', (t) => {
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.bigInteger('file_id').notNullable().references('uploaded_files.id').onDelete('CASCADE');
    t.bigInteger('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    t.primary(['file_id', 'document_id']);
  });
  // Deleting a document finds its links; the file's own lookups use the primary key.
  await knex.raw('CREATE INDEX uploaded_file_documents_document ON uploaded_file_documents (document_id)');
  await knex.raw(`
    INSERT INTO uploaded_file_documents (company_id, file_id, document_id)
    SELECT company_id, imported_file_id, id FROM documents WHERE imported_file_id IS NOT NULL
    ON CONFLICT DO NOTHING`);
  await knex.raw(`
    INSERT INTO uploaded_file_documents (company_id, file_id, document_id)
    SELECT f.company_id, f.id, d.id
      FROM uploaded_files f
      CROSS JOIN LATERAL jsonb_array_elements(f.skipped) AS s(entry)
      JOIN documents d ON d.id = (s.entry->>'existing_document_id')::bigint AND d.company_id = f.company_id
     WHERE jsonb_array_length(f.skipped) > 0
    ON CONFLICT DO NOTHING`);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
