import type { Knex } from 'knex';

/**
 * - documents.original_zip_pdf_entry: the PDF found inside an original ZIP (the files object
 *   derives pdf.status from it for credit notes).
 * - An index for the list filter by contact.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.text('original_zip_pdf_entry');
  });
  await knex.raw(
    'CREATE INDEX documents_company_type_contact_page ON documents (company_id, document_type, contact_id, issued_at DESC, id DESC)',
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
