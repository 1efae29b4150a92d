/**
 * What accountants book of a stored document, read back from its columns (migrations
 * 20261123080000 and 20261125120000): the document-level taxes of every tributo, withholdings
 * with their COP equivalents, document-level allowances and charges, prepayments, the rounding,
 * the exchange rate as written and the COP equivalents of the totals. Shared by the API
 * presenter and the export input, so both say the same thing. Pure.
 */
import { sumDecimals } from '../ubl/amounts';
import type { UblAllowanceCharge, UblPrepaidPayment, UblTax, UblWithholding } from '../ubl/types';
import { copEquivalents, type ExchangeRate } from './cop-equivalents';

export type StoredAccounting = {
  currency: string | null;
  sub_total: string | null;
  vat: string | null;
  total: string | null;
  /** Document-level TaxTotal/TaxSubtotal of every scheme; NULL for a row whose original was not read for them (before 20261125120000, or no XML). */
  taxes: UblTax[] | null;
  withholdings: UblWithholding[] | null;
  allowance_charges: UblAllowanceCharge[] | null;
  prepaid_payments: UblPrepaidPayment[] | null;
  prepaid_amount: string | null;
  allowance_total: string | null;
  charge_total: string | null;
  payable_rounding_amount: string | null;
  /** Sum of the document-level TaxTotal/RoundingAmount; NULL when the document has none (or was imported before 20261125140000). */
  tax_rounding_amount: string | null;
  exchange_rate: string | null;
  exchange_source_currency: string | null;
  exchange_target_currency: string | null;
  exchange_rate_date: string | null;
};

/** The accounting columns beyond sub_total, vat, total and currency. */
export const ACCOUNTING_COLUMNS = [
  'taxes',
  'withholdings',
  'allowance_charges',
  'prepaid_payments',
  'prepaid_amount',
  'allowance_total',
  'charge_total',
  'payable_rounding_amount',
  'tax_rounding_amount',
  'exchange_rate',
  'exchange_source_currency',
  'exchange_target_currency',
  'exchange_rate_date',
] as const satisfies readonly (keyof StoredAccounting)[];

export type DocumentAccounting = {
  /** Every document-level tax subtotal (IVA, INC, ICA, IC, ICUI, INC bolsas …); empty when not known. */
  taxes: UblTax[];
  /** Their sum (TaxInclusiveAmount − LineExtensionAmount); null when the taxes were never read from the original. */
  taxTotal: string | null;
  withholdings: (UblWithholding & { taxAmountCop: string | null })[];
  withholdingTotal: string;
  allowanceCharges: UblAllowanceCharge[];
  allowanceTotal: string;
  chargeTotal: string;
  prepaidAmount: string;
  prepaidPayments: UblPrepaidPayment[];
  /** PayableRoundingAmount: what the supplier added to round the total to pay. */
  payableRounding: string;
  /** The tributos' own rounding (TaxTotal/RoundingAmount), as written; not part of taxTotal. */
  taxRounding: string;
  exchangeRate: ExchangeRate | null;
  /** COP equivalents of sub_total, vat, the taxes, total and the withholdings; null for a COP document or one without a rate to COP. */
  cop: { subTotal: string; vat: string; taxTotal: string | null; total: string; withholdingTotal: string } | null;
};

const ZERO = '0.00';

export function documentAccounting(row: StoredAccounting): DocumentAccounting {
  const withholdings = row.withholdings ?? [];
  const allowanceCharges = row.allowance_charges ?? [];
  const amountsOf = (charge: boolean) => allowanceCharges.filter((entry) => entry.chargeIndicator === charge).map((entry) => entry.amount);
  const exchangeRate =
    row.exchange_rate !== null && row.exchange_source_currency !== null && row.exchange_target_currency !== null
      ? { sourceCurrency: row.exchange_source_currency, targetCurrency: row.exchange_target_currency, rate: row.exchange_rate, date: row.exchange_rate_date }
      : null;
  const total = row.total ?? ZERO;
  const taxTotal = row.taxes === null ? null : sumDecimals(row.taxes.map((entry) => entry.taxAmount));
  const cop = copEquivalents({
    currency: row.currency,
    exchangeRate,
    subTotal: row.sub_total ?? total,
    vat: row.vat ?? ZERO,
    taxTotal,
    total,
    withholdingAmounts: withholdings.map((entry) => entry.taxAmount),
  });
  return {
    taxes: row.taxes ?? [],
    taxTotal,
    withholdings: withholdings.map((entry, index) => ({ ...entry, taxAmountCop: cop ? cop.withholdings[index] : null })),
    withholdingTotal: sumDecimals(withholdings.map((entry) => entry.taxAmount)),
    allowanceCharges,
    allowanceTotal: row.allowance_total ?? sumDecimals(amountsOf(false)),
    chargeTotal: row.charge_total ?? sumDecimals(amountsOf(true)),
    prepaidAmount: row.prepaid_amount ?? sumDecimals((row.prepaid_payments ?? []).map((entry) => entry.paidAmount)),
    prepaidPayments: row.prepaid_payments ?? [],
    payableRounding: row.payable_rounding_amount ?? ZERO,
    taxRounding: row.tax_rounding_amount ?? ZERO,
    exchangeRate,
    cop: cop ? { subTotal: cop.subTotal, vat: cop.vat, taxTotal: cop.taxTotal, total: cop.total, withholdingTotal: cop.withholdingTotal } : null,
  };
}
