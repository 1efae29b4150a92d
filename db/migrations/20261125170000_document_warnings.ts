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
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
