/**
 * Required/optional field helpers shared by the UBL readers: every failure is a UblParseError.
 */
import { isDecimal } from './amounts';
import { UblParseError } from './types';

export function missing(field: string): UblParseError {
  return new UblParseError('missing_field', `the document has no ${field}`);
}

export function required(value: string | null, field: string): string {
  if (value === null) throw missing(field);
  return value;
}

/**
 * Integer digits an amount may have: amounts are stored as numeric(18,2) (decision 0003), up to
 * 9,999,999,999,999,999.99, far beyond any real document; a longer one could not be stored.
 */
export const MAX_AMOUNT_INTEGER_DIGITS = 16;

/**
 * UBL amounts are xsd:decimal, whose lexical space also has '.5' and '5.' (DIAN's schema
 * validation accepts them): written here as the plain decimal text '0.5' and '5'.
 */
function plainDecimal(value: string): string {
  return value.replace(/^([+-]?)\.(\d+)$/, '$10.$2').replace(/^([+-]?\d+)\.$/, '$1');
}

/**
 * A decimal amount as written (trimmed; '.5' and '5.' as '0.5' and '5'); invalid_field when it
 * is not decimal text or too large to store.
 */
export function amount(value: string | null, field: string): string | null {
  if (value === null) return null;
  const decimal = plainDecimal(value);
  if (!isDecimal(decimal)) {
    throw new UblParseError('invalid_field', `${field} is not a decimal amount: ${JSON.stringify(value.slice(0, 40))}`);
  }
  return storable(decimal, field);
}

/** The amount (written or summed) when it fits the amounts' storage; invalid_field otherwise. */
export function storable(value: string, field: string): string {
  const integerDigits = value.replace(/^[+-]/, '').split('.')[0].replace(/^0+(?=\d)/, '').length;
  if (integerDigits > MAX_AMOUNT_INTEGER_DIGITS) {
    throw new UblParseError('invalid_field', `${field} has ${integerDigits} integer digits; amounts may have at most ${MAX_AMOUNT_INTEGER_DIGITS}: ${JSON.stringify(value.slice(0, 40))}`);
  }
  return value;
}
