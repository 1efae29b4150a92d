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

/** Divides a scaled value by 10^drop, rounding half-up (half away from zero, as Postgres numeric does). */
function dropDigits(value: bigint, drop: number): bigint {
  if (drop <= 0) return value * 10n ** BigInt(-drop);
  const divisor = 10n ** BigInt(drop);
  const magnitude = value < 0n ? -value : value;
  const rounded = (magnitude + divisor / 2n) / divisor;
  return value < 0n ? -rounded : rounded;
}

/**
 * A decimal string rounded half-up (half away from zero) to `scale` places:
 * roundDecimal('6299.945') === '6299.95', roundDecimal('5') === '5.00'.
 */
export function roundDecimal(value: string, scale = 2): string {
  const own = decimalScale(value);
  return fromScaled(dropDigits(toScaled(value, own), own - scale), scale);
}

/**
 * The exact product of two decimal strings rounded half-up to `scale` places (2 by default),
 * computed on BigInts: multiplyDecimals('14994.07', '3100') === '46481617.00',
 * multiplyDecimals('10.005', '1') === '10.01'.
 */
export function multiplyDecimals(a: string, b: string, scale = 2): string {
  const scaleA = decimalScale(a);
  const scaleB = decimalScale(b);
  const product = toScaled(a, scaleA) * toScaled(b, scaleB);
  return fromScaled(dropDigits(product, scaleA + scaleB - scale), scale);
}

/** The exact difference a − b of two decimal strings, with the larger number of decimals (at least 2). */
export function subtractDecimals(a: string, b: string): string {
  const scale = Math.max(decimalScale(a), decimalScale(b), 2);
  return fromScaled(toScaled(a, scale) - toScaled(b, scale), scale);
}

/** The magnitude of a decimal string: absoluteDecimal('-1.50') === '1.50'. */
export function absoluteDecimal(value: string): string {
  const scale = decimalScale(value);
  const scaled = toScaled(value, scale);
  return fromScaled(scaled < 0n ? -scaled : scaled, scale);
}

/** -1, 0 or 1 as a is below, equal to or above b, compared exactly: compareDecimals('1.0', '1.00') === 0. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const scale = Math.max(decimalScale(a), decimalScale(b));
  const difference = toScaled(a, scale) - toScaled(b, scale);
  return difference < 0n ? -1 : difference > 0n ? 1 : 0;
}
