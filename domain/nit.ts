/**
 * Colombian NIT check digit (dígito de verificación), DIAN's modulo-11 algorithm:
 * digits are weighted from the right by the primes below; the remainder r of the sum
 * by 11 gives the digit r itself when r < 2, and 11 - r otherwise.
 */
const WEIGHTS = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71] as const;

export const NIT_PATTERN = /^[0-9]{5,15}$/;

export function isValidNit(nit: string): boolean {
  return NIT_PATTERN.test(nit);
}

export function nitCheckDigit(nit: string): string {
  if (!isValidNit(nit)) {
    throw new RangeError(`A NIT is 5 to 15 digits without the check digit, got ${JSON.stringify(nit)}`);
  }
  let sum = 0;
  for (let position = 0; position < nit.length; position += 1) {
    const digit = nit.charCodeAt(nit.length - 1 - position) - 48;
    sum += digit * WEIGHTS[position];
  }
  const remainder = sum % 11;
  return String(remainder < 2 ? remainder : 11 - remainder);
}
