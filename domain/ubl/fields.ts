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

/** A decimal amount as written (trimmed); invalid_field when it is not plain decimal text. */
export function amount(value: string | null, field: string): string | null {
  if (value === null) return null;
  if (!isDecimal(value)) {
    throw new UblParseError('invalid_field', `${field} is not a decimal amount: ${JSON.stringify(value.slice(0, 40))}`);
  }
  return value;
}
