/**
 * Display formatting of the decimal strings of a UBL document, Colombian style
 * (thousands with '.', decimals with ','), done on the digits themselves: amounts never pass
 * through a float, so '12345678901234567.895' still shows every digit.
 */

const DECIMAL = /^([+-]?)(\d+)(?:\.(\d*))?$/;

type Decimal = { negative: boolean; integer: string; fraction: string };

function parseDecimal(value: string): Decimal | null {
  const match = DECIMAL.exec(value.trim());
  if (!match) return null;
  const integer = match[2].replace(/^0+(?=\d)/, '');
  return { negative: match[1] === '-', integer, fraction: match[3] ?? '' };
}

/** Adds one to a string of digits ('199' → '200', '99' → '100'). */
function incrementDigits(digits: string): string {
  const chars = [...digits];
  for (let index = chars.length - 1; index >= 0; index -= 1) {
    if (chars[index] !== '9') {
      chars[index] = String.fromCharCode(chars[index].charCodeAt(0) + 1);
      return chars.join('');
    }
    chars[index] = '0';
  }
  return `1${chars.join('')}`;
}

/**
 * Rounds to `places` decimals, half away from zero (half-up on the magnitude, as on an
 * invoice: 0.005 → 0.01, -0.005 → -0.01), padding with zeros when there are fewer.
 */
function roundDecimal(decimal: Decimal, places: number): Decimal {
  const { fraction } = decimal;
  if (fraction.length <= places) return { ...decimal, fraction: fraction.padEnd(places, '0') };
  const kept = decimal.integer + fraction.slice(0, places);
  const rounded = fraction.charCodeAt(places) >= 53 /* '5' */ ? incrementDigits(kept) : kept;
  const integerLength = rounded.length - places;
  return {
    negative: decimal.negative,
    integer: rounded.slice(0, integerLength) || '0',
    fraction: rounded.slice(integerLength),
  };
}

function groupThousands(integer: string): string {
  return integer.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
}

function isZero(decimal: Decimal): boolean {
  return /^0*$/.test(decimal.integer) && /^0*$/.test(decimal.fraction);
}

function render(decimal: Decimal, prefix: string): string {
  const sign = decimal.negative && !isZero(decimal) ? '-' : '';
  const fraction = decimal.fraction ? `,${decimal.fraction}` : '';
  return `${sign}${prefix}${groupThousands(decimal.integer)}${fraction}`;
}

/** '12600.06' → '12.600,06'; '1234.5' → '1.234,50'; '0.125' → '0,13'. Non-numeric text is returned trimmed. */
export function formatAmount(value: string): string {
  const decimal = parseDecimal(value);
  return decimal ? render(roundDecimal(decimal, 2), '') : value.trim();
}

const SYMBOLS: Record<string, string> = { COP: '$', USD: 'US$', EUR: '€', GBP: '£', JPY: '¥' };

/**
 * '12600.06', 'COP' → '$ 12.600,06 COP'; '-5', 'USD' → '-US$ 5,00 USD'; a currency without a
 * known symbol shows only its code ('1.000,00 MXN').
 */
export function formatMoney(value: string, currency: string): string {
  const code = currency.trim().toUpperCase();
  const symbol = SYMBOLS[code];
  const decimal = parseDecimal(value);
  if (!decimal) return `${value.trim()} ${code}`.trim();
  const shown = render(roundDecimal(decimal, 2), symbol ? `${symbol} ` : '');
  return code ? `${shown} ${code}` : shown;
}

/** Quantities keep their significant decimals: '1.000000' → '1'; '2.50' → '2,5'; '1500' → '1.500'. */
export function formatQuantity(value: string): string {
  const decimal = parseDecimal(value);
  if (!decimal) return value.trim();
  const rounded = roundDecimal(decimal, Math.min(decimal.fraction.length, 6));
  return render({ ...rounded, fraction: rounded.fraction.replace(/0+$/, '') }, '');
}

/** Tax rates: '19.00' → '19%'; '0.000' → '0%'; '8.5' → '8,5%'; null → '-'. */
export function formatPercent(value: string | null): string {
  if (value === null || value.trim() === '') return '-';
  const quantity = formatQuantity(value);
  return DECIMAL.test(value.trim()) ? `${quantity}%` : quantity;
}
