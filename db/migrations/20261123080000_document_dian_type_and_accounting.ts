import type { Knex } from 'knex';

/**
 * DIAN fidelity (docs/dian.md, docs/ingestion.md):
 *  - What each document is for DIAN: dian_document_type (electronic_invoice, export_invoice,
 *    contingency_invoice, support_document, pos_equivalent, …; the API's `document_type`), the
 *    type code as written (InvoiceTypeCode …) and the scheme of its code (CUFE / CUDE / CUDS).
 *    Rows imported before this migration are backfilled from their collection (their type code
 *    was not kept): invoices as electronic_invoice/CUFE, notes as credit_note|debit_note/CUDE;
 *    dian_type_code stays NULL on them, which marks the classification as inferred.
 *  - What accountants book: withholdings, document-level allowances/charges and prepayments
 *    (jsonb lists, amounts as 2-decimal strings), the prepaid/allowance/charge totals
 *    (numeric(18,2) like every amount, decision 0003) and the exchange rate as written
 *    (unconstrained numeric keeps every digit and the written scale).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('documents', (t) => {
    t.text('dian_document_type');
    t.text('dian_type_code');
    t.text('code_scheme');
    t.jsonb('withholdings');
    t.jsonb('allowance_charges');
    t.jsonb('prepaid_payments');
    t.decimal('prepaid_amount', 18, 2);
    t.decimal('allowance_total', 18, 2);
    t.decimal('charge_total', 18, 2);
    t.specificType('exchange_rate', 'numeric');
    t.text('exchange_source_currency');
    t.text('exchange_target_currency');
    t.date('exchange_rate_date');
  });
  await knex.raw(`ALTER TABLE documents ADD CONSTRAINT documents_code_scheme CHECK (code_scheme IN ('CUFE', 'CUDE', 'CUDS'))`);
  await knex.raw(`ALTER TABLE documents ADD CONSTRAINT documents_exchange_rate_positive CHECK (exchange_rate > 0)`);
  await knex.raw(`
    UPDATE documents
       SET dian_document_type = document_type,
           code_scheme = CASE document_type WHEN 'electronic_invoice' THEN 'CUFE' ELSE 'CUDE' END
     WHERE cufe IS NOT NULL
       AND document_type IN ('electronic_invoice', 'credit_note', 'debit_note')
       AND dian_document_type IS NULL`);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
