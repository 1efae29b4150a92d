/**
 * cac:TaxSubtotal → UblTax, for TaxTotal and WithholdingTaxTotal alike.
 */
import { amount, required } from './fields';
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

