/**
 * Exact decimal handling for UBL amounts. Amounts are kept as the literal text of the XML;
 * sums are computed on scaled BigInts, never on floats.
 */

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d+))?$/;

/** True for plain decimal text such as '12600.06', '-5', '0.000' (no exponent, no grouping). */
export function isDecimal(value: string): boolean {
  return DECIMAL.test(value);
}

/** Number of digits after the decimal point of a valid decimal string. */
export function decimalScale(value: string): number {
  const match = DECIMAL.exec(value);
  if (!match) throw new RangeError(`not a decimal: ${JSON.stringify(value)}`);
  return match[3]?.length ?? 0;
}

function toScaled(value: string, scale: number): bigint {
  const match = DECIMAL.exec(value);
  if (!match) throw new RangeError(`not a decimal: ${JSON.stringify(value)}`);
  const fraction = (match[3] ?? '').padEnd(scale, '0');
  const magnitude = BigInt(match[2] + fraction);
  return match[1] === '-' ? -magnitude : magnitude;
}

function fromScaled(value: bigint, scale: number): string {
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(scale + 1, '0');
  const integer = digits.slice(0, digits.length - scale);
  const fraction = digits.slice(digits.length - scale);
  return `${negative ? '-' : ''}${integer}${scale > 0 ? `.${fraction}` : ''}`;
}

/**
 * Exact sum of decimal strings, rendered with the largest number of decimals among the addends
 * (at least `minScale`, 2 by default): sumDecimals(['2394.01', '30.00']) === '2424.01'.
 * Throws RangeError on a value that is not plain decimal text.
 */
export function sumDecimals(values: readonly string[], minScale = 2): string {
  const scale = values.reduce((max, value) => Math.max(max, decimalScale(value)), minScale);
  const total = values.reduce((sum, value) => sum + toScaled(value, scale), 0n);
  return fromScaled(total, scale);
}
