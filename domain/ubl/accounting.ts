/**
 * What accountants book besides lines and taxes (Anexo Técnico 1.9): withholdings
 * (cac:WithholdingTaxTotal), document-level discounts and charges (cac:AllowanceCharge),
 * prepayments (cac:PrepaidPayment) and the exchange rate (cac:PaymentExchangeRate).
 * Only elements directly under the document root are read: line-level AllowanceCharge and
 * WithholdingTaxTotal are already reflected in the line amounts. Amounts stay the literal
 * decimal text of the XML. Pure: no I/O.
 */
import { amount } from './fields';
import { parseIsoDate } from './dates';
import { readTax } from './taxes';
import { UblParseError, type UblAllowanceCharge, type UblDocument, type UblExchangeRate, type UblPrepaidPayment, type UblWithholding } from './types';
import { all, child, children, text, type XmlElement } from './xml-tree';

/** DIAN tax scheme codes of the withholdings (Anexo 1.9, table 13.2.2 "Tributos"). */
const WITHHOLDING_SCHEMES: Record<string, UblWithholding['type']> = { '05': 'rete_iva', '06': 'rete_fuente', '07': 'rete_ica' };

/** The withholding a scheme names, by its ID, else by its name (ReteIVA, ReteFuente/ReteRenta, ReteICA). */
export function withholdingType(schemeId: string, schemeName: string | null): UblWithholding['type'] {
  const byId = WITHHOLDING_SCHEMES[schemeId.trim()];
  if (byId) return byId;
  const name = (schemeName ?? '').replace(/[\s_-]/g, '').toLowerCase();
  if (name === 'reteiva') return 'rete_iva';
  if (name === 'retefuente' || name === 'reterenta') return 'rete_fuente';
  if (name === 'reteica') return 'rete_ica';
  return 'other';
}

/** Document-level cac:WithholdingTaxTotal/cac:TaxSubtotal entries. */
export function readWithholdings(root: XmlElement): UblWithholding[] {
  return all(root, 'WithholdingTaxTotal/TaxSubtotal').map((subtotal, index) => {
    const tax = readTax(subtotal, `WithholdingTaxTotal TaxSubtotal[${index + 1}]`);
    return { type: withholdingType(tax.schemeId, tax.schemeName), ...tax };
  });
}

function booleanText(value: string | null): boolean | null {
  const normalized = value?.trim().toLowerCase();
  if (normalized === 'true' || normalized === '1') return true;
  if (normalized === 'false' || normalized === '0') return false;
  return null;
}

/** The cac:AllowanceCharge children of root (the document, or one line: `within` names it in errors); one without an Amount or ChargeIndicator is not bookable and is left out. */
export function readAllowanceCharges(root: XmlElement, within = ''): UblAllowanceCharge[] {
  const result: UblAllowanceCharge[] = [];
  children(root, 'AllowanceCharge').forEach((element, index) => {
    const field = `${within}AllowanceCharge[${index + 1}]`;
    const chargeIndicator = booleanText(text(element, 'ChargeIndicator'));
    const value = amount(text(element, 'Amount'), `${field} Amount`);
    if (chargeIndicator === null || value === null) return;
    result.push({
      chargeIndicator,
      reasonCode: text(element, 'AllowanceChargeReasonCode'),
      reason: text(element, 'AllowanceChargeReason'),
      percent: amount(text(element, 'MultiplierFactorNumeric'), `${field} MultiplierFactorNumeric`),
      amount: value,
      baseAmount: amount(text(element, 'BaseAmount'), `${field} BaseAmount`),
    });
  });
  return result;
}

/** cac:PrepaidPayment elements with a PaidAmount. */
export function readPrepaidPayments(root: XmlElement): UblPrepaidPayment[] {
  const result: UblPrepaidPayment[] = [];
  children(root, 'PrepaidPayment').forEach((element, index) => {
    const paidAmount = amount(text(element, 'PaidAmount'), `PrepaidPayment[${index + 1}] PaidAmount`);
    if (paidAmount === null) return;
    result.push({
      id: text(element, 'ID'),
      paidAmount,
      receivedDate: parseIsoDate(text(element, 'ReceivedDate')),
      paidDate: parseIsoDate(text(element, 'PaidDate')),
      instruction: text(element, 'InstructionID'),
    });
  });
  return result;
}

/**
 * cac:PaymentExchangeRate, the rate exactly as written (CalculationRate); null when the
 * element or one of its currencies or its rate is absent.
 */
export function readExchangeRate(root: XmlElement): UblExchangeRate | null {
  const element = child(root, 'PaymentExchangeRate');
  if (!element) return null;
  const sourceCurrency = text(element, 'SourceCurrencyCode');
  const targetCurrency = text(element, 'TargetCurrencyCode');
  const rate = amount(text(element, 'CalculationRate'), 'PaymentExchangeRate/CalculationRate');
  if (!sourceCurrency || !targetCurrency || rate === null) return null;
  if (/^[+-]?0*(\.0*)?$/.test(rate) || rate.startsWith('-')) {
    throw new UblParseError('invalid_field', `PaymentExchangeRate/CalculationRate must be positive: ${JSON.stringify(rate)}`);
  }
  return {
    sourceCurrency: sourceCurrency.toUpperCase(),
    targetCurrency: targetCurrency.toUpperCase(),
    rate,
    date: parseIsoDate(text(element, 'Date')),
  };
}

/** The accounting fields of a document that has none of them (for documents built in code). */
export const NO_ACCOUNTING_EXTRAS = {
  withholdings: [],
  allowanceCharges: [],
  allowanceTotalAmount: null,
  chargeTotalAmount: null,
  prepaidAmount: null,
  taxRoundingAmount: null,
  payableRoundingAmount: null,
  prepaidPayments: [],
  exchangeRate: null,
} as const satisfies Partial<UblDocument>;
