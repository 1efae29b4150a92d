import type { Knex } from 'knex';

/**
 * The rest of DIAN's monetary total (docs/ingestion.md): every document-level tax subtotal
 * (cac:TaxTotal/cac:TaxSubtotal of any tributo — IVA, INC, ICA, IC, ICUI, INC bolsas … — as a
 * jsonb list, amounts as 2-decimal strings) and PayableRoundingAmount (numeric(18,2)), so that
 * PayableAmount = LineExtensionAmount + taxes − allowances + charges − prepayments + rounding
 * can be followed from the API. `vat` alone left INC and the other tributos, and the rounding,
 * unexplained. Rows imported before this migration keep NULL taxes, which marks them for
 * `invoicing documents reclassify` (it re-reads their stored originals).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.jsonb('taxes');
    t.decimal('payable_rounding_amount', 18, 2);
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
