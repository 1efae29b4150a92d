/**
 * COP equivalents of a foreign-currency document's amounts: amount × the document's
 * PaymentExchangeRate (CalculationRate, COP per unit of the document currency), rounded half-up
 * to 2 places, computed exactly on decimal strings (never floats). Pure.
 */
import { multiplyDecimals, sumDecimals } from '../ubl/amounts';

export const COP = 'COP';

export type ExchangeRate = { sourceCurrency: string; targetCurrency: string; rate: string; date: string | null };

/**
 * The rate that turns amounts of `currency` into COP: the document's rate when it converts
 * `currency` → COP; null when the document is already in COP, has no rate, or its rate goes
 * another way (e.g. the toolbox's COP document quoting its USD equivalent).
 */
export function rateToCop(currency: string | null, exchangeRate: ExchangeRate | null): string | null {
  if (!currency || currency.toUpperCase() === COP || !exchangeRate) return null;
  if (exchangeRate.targetCurrency.toUpperCase() !== COP || exchangeRate.sourceCurrency.toUpperCase() !== currency.toUpperCase()) return null;
  return exchangeRate.rate;
}

/** amount × rate rounded half-up to 2 decimals. */
export function toCop(amount: string, rate: string): string {
  return multiplyDecimals(amount, rate, 2);
}

export type CopEquivalents = {
  rate: string;
  subTotal: string;
  vat: string;
  /** All the document-level taxes in COP; null when they are not known. */
  taxTotal: string | null;
  total: string;
  /** One per withholding, in order. */
  withholdings: string[];
  /** The sum of the converted withholdings. */
  withholdingTotal: string;
};

/** The COP equivalents of a document, or null when it needs none or cannot have them (see rateToCop). */
export function copEquivalents(document: {
  currency: string | null;
  exchangeRate: ExchangeRate | null;
  subTotal: string;
  vat: string;
  taxTotal: string | null;
  total: string;
  withholdingAmounts: readonly string[];
}): CopEquivalents | null {
  const rate = rateToCop(document.currency, document.exchangeRate);
  if (rate === null) return null;
  const withholdings = document.withholdingAmounts.map((amount) => toCop(amount, rate));
  return {
    rate,
    subTotal: toCop(document.subTotal, rate),
    vat: toCop(document.vat, rate),
    taxTotal: document.taxTotal === null ? null : toCop(document.taxTotal, rate),
    total: toCop(document.total, rate),
    withholdings,
    withholdingTotal: sumDecimals(withholdings),
  };
}
