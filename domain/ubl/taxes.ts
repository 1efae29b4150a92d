/**
 * cac:TaxSubtotal → UblTax, for TaxTotal and WithholdingTaxTotal alike.
 */
import { sumDecimals } from './amounts';
import { amount, required, storable } from './fields';
import type { UblTax } from './types';
import { all, child, text, type XmlElement } from './xml-tree';

export function readTax(subtotal: XmlElement, field: string): UblTax {
  const category = child(subtotal, 'TaxCategory');
  const scheme = child(category, 'TaxScheme');
  // A tax per unit (INC bolsas, the fuel taxes…) has no rate: PerUnitAmount × BaseUnitMeasure units.
  const perUnitAmount = amount(text(subtotal, 'PerUnitAmount'), `${field} PerUnitAmount`);
  return {
    schemeId: text(scheme, 'ID') ?? '',
    schemeName: text(scheme, 'Name'),
    percent: amount(text(category, 'Percent') ?? text(subtotal, 'Percent'), `${field} Percent`),
    taxableAmount: amount(text(subtotal, 'TaxableAmount'), `${field} TaxableAmount`) ?? '0.00',
    taxAmount: required(amount(text(subtotal, 'TaxAmount'), `${field} TaxAmount`), `${field} TaxAmount`),
    ...(perUnitAmount === null ? {} : { perUnitAmount, units: amount(text(subtotal, 'BaseUnitMeasure'), `${field} BaseUnitMeasure`) }),
  };
}

/** Tax subtotals of the TaxTotal elements directly under `owner` (never WithholdingTaxTotal). */
export function readTaxes(owner: XmlElement, field: string): UblTax[] {
  return all(owner, 'TaxTotal/TaxSubtotal').map((subtotal, index) => readTax(subtotal, `${field} TaxSubtotal[${index + 1}]`));
}


/**
 * The sum of the cac:TaxTotal/cbc:RoundingAmount directly under `owner` (the rounding DIAN lets
 * each tributo's total carry, Anexo Técnico 1.9 group TaxTotal); null when none is written.
 */
export function readTaxRounding(owner: XmlElement): string | null {
  const roundings = all(owner, 'TaxTotal')
    .map((total, index) => amount(text(total, 'RoundingAmount'), `TaxTotal[${index + 1}] RoundingAmount`))
    .filter((value): value is string => value !== null);
  return roundings.length ? storable(sumDecimals(roundings), 'the sum of the TaxTotal/RoundingAmount') : null;
}
