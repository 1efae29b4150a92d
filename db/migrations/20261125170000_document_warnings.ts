import type { Knex } from 'knex';

/**
 * `warnings`: what is wrong with a document as written, stored with it (docs/ingestion.md,
 * decision 0029): [{code, message}], e.g. a PayableAmount that does not follow from the other
 * monetary totals. The document is imported and its figures kept as written; the warnings only
 * say so. '[]' when its totals were checked and add up. NULL when they were never checked: a
 * document without a DIAN XML (a bare PDF, a payment claim typed in), and every row stored before
 * this migration — `invoicing documents reclassify` re-reads those originals and fills it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.jsonb('warnings');
  });
  // has_warnings=true pages through the few flagged documents by themselves, not through every
  // document of the company filtered one by one (the list's keyset order, documents_company_type_page).
  await knex.raw(
    'CREATE INDEX documents_company_type_warned_page ON documents (company_id, document_type, issued_at DESC, id DESC) WHERE jsonb_array_length(warnings) > 0',
  );
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
