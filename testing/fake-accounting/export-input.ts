import type { ExportInput } from '../../integrations/accounting/port';

/** The DIAN type and accounting fields of a plain COP electronic invoice (no withholdings, discounts, prepayments or exchange rate). */
export const PLAIN_INVOICE_EXTRAS: Pick<
  ExportInput['document'],
  'documentType' | 'codeScheme' | 'withholdings' | 'withholdingTotal' | 'allowanceCharges' | 'prepaidAmount' | 'exchangeRate' | 'copEquivalents'
> = {
  documentType: 'electronic_invoice',
  codeScheme: 'CUFE',
  withholdings: [],
  withholdingTotal: '0.00',
  allowanceCharges: [],
  prepaidAmount: '0.00',
  exchangeRate: null,
  copEquivalents: null,
};
