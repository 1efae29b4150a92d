/**
 * pdf-lib's standard fonts (Helvetica, Helvetica-Bold) only encode WinAnsi (Windows-1252):
 * drawing or measuring any other character throws. Every string that reaches the PDF goes
 * through `toWinAnsi`, which keeps what WinAnsi can show (all Spanish letters and marks:
 * áéíóúüñÑ¿¡°ª º €) and replaces the rest with a close ASCII equivalent or '?'.
 */

const WINANSI_EXTRA = 'ŒœŠšŸŽžƒˆ˜–—‘’‚“”„†‡•…‰‹›€™';

/** Code points that Helvetica / Helvetica-Bold can draw through pdf-lib's WinAnsi encoding. */
export const WINANSI_CODE_POINTS: ReadonlySet<number> = new Set<number>([
  ...range(0x20, 0x7e),
  ...range(0xa0, 0xff),
  ...[...WINANSI_EXTRA].map((character) => character.codePointAt(0)!),
]);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

/** Characters outside WinAnsi (that NFD cannot reduce to a WinAnsi base letter) with a readable stand-in. */
const REPLACEMENTS: Record<string, string> = {
  'ł': 'l', 'Ł': 'L', 'đ': 'd', 'Đ': 'D', 'ı': 'i', 'ŉ': "'n",
  'ĸ': 'k', 'ŀ': 'l', 'Ŀ': 'L', 'ŧ': 't', 'Ŧ': 'T', 'ħ': 'h', 'Ħ': 'H', 'ŋ': 'n', 'Ŋ': 'N',
  'ə': 'e', 'Ə': 'E', 'ſ': 's', 'ǝ': 'e',
  '‐': '-', '‑': '-', '‒': '-', '―': '-', '−': '-', '⁃': '-',
  '′': "'", '″': '"', '‛': "'", '‟': '"', '‵': "'",
  '≤': '<=', '≥': '>=', '≠': '!=', '≈': '~', '∞': 'inf', '√': 'V', '∑': 'S', '∆': 'D', '∙': '·',
  '←': '<-', '→': '->', '↔': '<->', '⇒': '=>', '⇐': '<=', '✓': 'v', '✔': 'v', '✗': 'x', '✘': 'x',
  '№': 'No.', '℃': '°C', '℉': '°F', '⅓': '1/3', '⅔': '2/3', '⅛': '1/8',
  '₡': 'CRC', '₲': 'PYG', '₹': 'INR', '₽': 'RUB', '₩': 'KRW', '₿': 'BTC', '₱': 'PHP', '₴': 'UAH',
  '⁄': '/', '∕': '/', '●': '•', '◦': '•', '▪': '•', '■': '•',
  '\u2028': ' ', '\u2029': ' ',
};

/** Zero-width and formatting characters: dropped (ZWJ inside emoji sequences, BOM, soft hyphen, ...). */
const DROPPED = /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\u{e0000}-\u{e0fff}\u{1f3fb}-\u{1f3ff}]/u;

const SPACES = /[\t\n\v\f\r\u0085\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/;

/** Unicode general categories that have no visible form of their own. */
const COMBINING_MARK = /\p{M}/u;
const CONTROL = /\p{Cc}|\p{Cs}|\p{Co}|\p{Cn}/u;

/**
 * Returns `text` with only WinAnsi characters: NFC first (so 'n' + U+0303 becomes 'ñ'),
 * whitespace and control characters become a space, invisible format characters are dropped,
 * accented letters outside WinAnsi lose their accent (ā → a, ő → o), a few symbols get an
 * ASCII spelling (→ becomes ->), and anything else (emoji, CJK, ...) becomes '?'.
 * Runs of spaces are kept; callers that wrap text collapse them.
 */
export function toWinAnsi(text: string): string {
  let output = '';
  for (const character of text.normalize('NFC')) {
    output += safeCharacter(character);
  }
  return output;
}

function safeCharacter(character: string): string {
  const codePoint = character.codePointAt(0)!;
  if (WINANSI_CODE_POINTS.has(codePoint) && codePoint !== 0xa0 && codePoint !== 0xad) return character;
  if (SPACES.test(character)) return ' ';
  if (DROPPED.test(character)) return '';
  const replacement = REPLACEMENTS[character];
  if (replacement !== undefined) return replacement;
  if (COMBINING_MARK.test(character)) return '';
  if (CONTROL.test(character)) return ' ';
  const stripped = character.normalize('NFKD').replace(/\p{M}/gu, '');
  if (stripped.length > 0 && stripped !== character && [...stripped].every(isPlainWinAnsi)) return stripped;
  return '?';
}

function isPlainWinAnsi(character: string): boolean {
  const codePoint = character.codePointAt(0)!;
  return codePoint >= 0x20 && WINANSI_CODE_POINTS.has(codePoint) && codePoint !== 0xa0 && codePoint !== 0xad;
}

/** `toWinAnsi` plus whitespace collapsed and trimmed: for single-line labels and values. */
export function cleanLine(text: string): string {
  return toWinAnsi(text).replace(/ {2,}/g, ' ').trim();
}
