/**
 * The document kinds and the API collection of each (spec rule 1: /companies/{id}/<resource>).
 * Debit notes are not among the spec's four kinds; they are stored and listed under their own
 * collection rather than misfiled as invoices or credit notes (docs/decisions/0007).
 */
export const DOCUMENT_TYPES = ['electronic_invoice', 'credit_note', 'payment_claim_account', 'foreign_invoice', 'debit_note'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export const COLLECTIONS: Record<DocumentType, string> = {
  electronic_invoice: 'invoices',
  credit_note: 'credit-notes',
  payment_claim_account: 'payment-claim-accounts',
  foreign_invoice: 'foreign-invoices',
  debit_note: 'debit-notes',
};

/** Kinds whose documents come from DIAN UBL files and carry a CUFE/CUDE. */
export function isElectronic(type: DocumentType): boolean {
  return type === 'electronic_invoice' || type === 'credit_note' || type === 'debit_note';
}
