import type { ExportInput } from '../../integrations/accounting/port';

/** The DIAN type and accounting fields of a plain COP electronic invoice (no withholdings, discounts, prepayments or exchange rate). */
export const PLAIN_INVOICE_EXTRAS: Pick<
  ExportInput['document'],
  'documentType' | 'codeScheme' | 'dianEnvironment' | 'taxes' | 'taxTotal' | 'withholdings' | 'withholdingTotal' | 'allowanceCharges' | 'prepaidAmount' | 'payableRounding' | 'taxRounding' | 'exchangeRate' | 'copEquivalents'
> = {
  documentType: 'electronic_invoice',
  codeScheme: 'CUFE',
  dianEnvironment: 'production',
  // Each test states its own subTotal/vat/total; the tax breakdown is left unknown, as for a document imported before it was read.
  taxes: [],
  taxTotal: null,
  withholdings: [],
  withholdingTotal: '0.00',
  allowanceCharges: [],
  prepaidAmount: '0.00',
  payableRounding: '0.00',
  taxRounding: '0.00',
  exchangeRate: null,
  copEquivalents: null,
};
