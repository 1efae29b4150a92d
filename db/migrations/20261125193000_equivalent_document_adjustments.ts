import type { Knex } from 'knex';

/**
 * Notas de ajuste al documento equivalente electrónico (type code 94 crédito, 93 débito, CUDE)
 * were classified as credit or debit notes of an invoice until 2026-11-25. Their type code is
 * stored, so they are given their own DIAN type here (`document_type` in the API).
 */
export async function up(knex: Knex): Promise<void> {
  await knex('documents')
    .whereIn('dian_type_code', ['93', '94'])
    .whereIn('dian_document_type', ['credit_note', 'debit_note'])
    .update({ dian_document_type: 'equivalent_document_adjustment' });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
