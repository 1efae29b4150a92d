import type { Knex } from 'knex';

/**
 * Two facts of a DIAN document an accountant needs beside its totals (docs/ingestion.md):
 * - `dian_environment`: which DIAN environment validated it, from cbc:ProfileExecutionID —
 *   'production' (1), 'testing' (2, habilitación: not a real purchase, no fiscal effect) or
 *   'unspecified' (absent or another value). NULL means the original was not read for it yet
 *   (rows imported before this migration): `invoicing documents reclassify` re-reads them.
 * - `tax_rounding_amount`: the sum of the document-level cac:TaxTotal/cbc:RoundingAmount
 *   (the rounding each tributo's total carries), numeric(18,2), NULL when the document has none.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.text('dian_environment');
    t.decimal('tax_rounding_amount', 18, 2);
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
