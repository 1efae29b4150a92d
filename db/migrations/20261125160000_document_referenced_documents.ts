import type { Knex } from 'knex';

/**
 * `referenced_documents`: every document a credit or debit note corrects, in reading order (one
 * cac:BillingReference each; Anexo técnico 1.9 lets a note correct several invoices), as
 * [{number, cufe, issueDate}]. Until now only the first was kept, in referenced_document_number
 * and referenced_document_cufe, which stay (the first reference, for the API's
 * referenced_document). Existing rows get that first reference (its issue date was not kept);
 * an empty list for a document without one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.jsonb('referenced_documents').notNullable().defaultTo(knex.raw(`'[]'::jsonb`));
  });
  await fillFromFirstReference(knex);
}

/** The list of a row stored before the column: its one reference, else empty (the column's default). */
export async function fillFromFirstReference(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE documents
    SET referenced_documents = jsonb_build_array(jsonb_build_object('number', referenced_document_number, 'cufe', referenced_document_cufe, 'issueDate', NULL))
    WHERE referenced_document_number IS NOT NULL`);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
