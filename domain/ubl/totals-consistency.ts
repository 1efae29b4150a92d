/**
 * Do a DIAN document's monetary totals agree with each other? DIAN's validation (Anexo técnico
 * de Factura Electrónica de Venta 1.9: the FAU rules of cac:LegalMonetaryTotal, and the CAU/DAU
 * rules of the notes) rejects a document whose totals contradict each other, so one that reaches
 * us was never validated, was altered, or is misread. It is still imported as written; these
 * findings flag it (docs/ingestion.md, decision 0029). Pure: plain objects in, findings out.
 */
import { absoluteDecimal, compareDecimals, subtractDecimals, sumDecimals } from './amounts';
import type { UblDocument } from './types';

export const TOTALS_WARNING_CODES = ['line_extension_mismatch', 'tax_inclusive_mismatch', 'payable_amount_mismatch'] as const;

export type TotalsWarningCode = (typeof TOTALS_WARNING_CODES)[number];

export type TotalsWarning = { code: TotalsWarningCode; message: string };

/** The figures the checks read, as the parser writes them (decimal text, never floats). */
export type MonetaryTotals = Pick<
  UblDocument,
  'subTotal' | 'taxInclusiveAmount' | 'total' | 'allowanceTotalAmount' | 'chargeTotalAmount' | 'prepaidAmount' | 'payableRoundingAmount'
> & {
  taxes: readonly Pick<UblDocument['taxes'][number], 'taxAmount'>[];
  lines: readonly Pick<UblDocument['lines'][number], 'lineExtensionAmount'>[];
  allowanceCharges: readonly Pick<UblDocument['allowanceCharges'][number], 'chargeIndicator' | 'amount'>[];
  prepaidPayments: readonly Pick<UblDocument['prepaidPayments'][number], 'paidAmount'>[];
};

/**
 * DIAN compares each pair of figures after rounding both to whole units of the document's
 * currency (the annex's rule text: "round(total) distinto de round(sum(…))"), so a difference
 * under one unit can pass its validation, and one of a whole unit or more never does. Only the
 * latter is flagged: a flag then always means a document DIAN would have rejected.
 */
export const TOTALS_TOLERANCE = '1.00';

function disagree(written: string, computed: string): boolean {
  return compareDecimals(absoluteDecimal(subtractDecimals(written, computed)), TOTALS_TOLERANCE) >= 0;
}

function finding(code: TotalsWarningCode, writtenName: string, written: string, formula: string, computed: string): TotalsWarning {
  return {
    code,
    message: `${writtenName} is ${written} but ${formula} is ${computed} (a difference of ${subtractDecimals(written, computed)})`,
  };
}

/**
 * The inconsistencies among the document's totals, in this order; empty when they add up:
 * - line_extension_mismatch: LineExtensionAmount ≠ the sum of the lines' LineExtensionAmount
 *   (FAU02; a line's own discounts and charges are already in it, a free line counts 0);
 * - tax_inclusive_mismatch: TaxInclusiveAmount ≠ LineExtensionAmount + the document-level
 *   TaxTotal/TaxSubtotal/TaxAmount of every tributo (FAU06; withholdings are not taxes here, and
 *   TaxTotal/RoundingAmount is informative, see docs/ingestion.md);
 * - payable_amount_mismatch: PayableAmount ≠ TaxInclusiveAmount − AllowanceTotalAmount +
 *   ChargeTotalAmount − PrepaidAmount + PayableRoundingAmount (FAU14; withholdings are not
 *   deducted), nor that same sum without deducting PrepaidAmount: DIAN's own example deducts
 *   the advance, while software authorised for Anexo 1.9 reports it and leaves the payable whole
 *   (Odoo's l10n_co_dian, which documents DIAN's validator as checking PayableAmount =
 *   TaxInclusiveAmount − AllowanceTotalAmount + ChargeTotalAmount, "PrepaidAmount is not used").
 *   Flagging either would mislead. An absent total counts as the sum of its list (the API shows
 *   the same), else 0.
 * Without a TaxInclusiveAmount the last two cannot be checked and are not.
 */
export function totalsInconsistencies(totals: MonetaryTotals): TotalsWarning[] {
  const warnings: TotalsWarning[] = [];
  const linesSum = sumDecimals(totals.lines.map((line) => line.lineExtensionAmount));
  if (disagree(totals.subTotal, linesSum)) {
    warnings.push(finding('line_extension_mismatch', 'LineExtensionAmount', totals.subTotal, "the sum of the lines' LineExtensionAmount", linesSum));
  }
  const taxInclusive = totals.taxInclusiveAmount;
  if (taxInclusive === null) return warnings;

  const withTaxes = sumDecimals([totals.subTotal, ...totals.taxes.map((tax) => tax.taxAmount)]);
  if (disagree(taxInclusive, withTaxes)) {
    warnings.push(finding('tax_inclusive_mismatch', 'TaxInclusiveAmount', taxInclusive, 'LineExtensionAmount + the taxes (TaxTotal)', withTaxes));
  }

  const { prepaid, beforePrepaid, deductingPrepaid: payable } = payableReadings(totals, taxInclusive);
  if (disagree(totals.total, payable) && disagree(totals.total, beforePrepaid)) {
    const warning = finding(
      'payable_amount_mismatch',
      'PayableAmount',
      totals.total,
      'TaxInclusiveAmount − AllowanceTotalAmount + ChargeTotalAmount − PrepaidAmount + PayableRoundingAmount',
      payable,
    );
    // With an advance there were two readings to miss: name the second too.
    if (compareDecimals(prepaid, '0') !== 0) warning.message += `, and ${beforePrepaid} without deducting PrepaidAmount`;
    warnings.push(warning);
  }
  return warnings;
}

/**
 * PayableAmount as DIAN's formula gives it (FAU14): with the advance (PrepaidAmount) deducted, and
 * before deducting it, the two readings totalsInconsistencies accepts. An absent total counts as
 * the sum of its list, else 0.
 */
function payableReadings(totals: MonetaryTotals, taxInclusive: string): { prepaid: string; beforePrepaid: string; deductingPrepaid: string } {
  const listed = (charge: boolean) => sumDecimals(totals.allowanceCharges.filter((entry) => entry.chargeIndicator === charge).map((entry) => entry.amount));
  const allowances = totals.allowanceTotalAmount ?? listed(false);
  const charges = totals.chargeTotalAmount ?? listed(true);
  const prepaid = totals.prepaidAmount ?? sumDecimals(totals.prepaidPayments.map((payment) => payment.paidAmount));
  const beforePrepaid = sumDecimals([taxInclusive, charges, totals.payableRoundingAmount ?? '0', subtractDecimals('0', allowances)]);
  return { prepaid, beforePrepaid, deductingPrepaid: subtractDecimals(beforePrepaid, prepaid) };
}

/**
 * Whether the document reports an advance without deducting it from PayableAmount (the reading of
 * software such as Odoo's, see totalsInconsistencies): its representation must not show the
 * advance as subtracted on the way to a total to pay that still includes it.
 */
export function leavesPrepaidUndeducted(totals: MonetaryTotals): boolean {
  if (totals.taxInclusiveAmount === null) return false;
  const { prepaid, beforePrepaid, deductingPrepaid } = payableReadings(totals, totals.taxInclusiveAmount);
  return compareDecimals(prepaid, '0') !== 0 && disagree(totals.total, deductingPrepaid) && !disagree(totals.total, beforePrepaid);
}
