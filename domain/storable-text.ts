/**
 * A UTF-16 surrogate without its pair: no character at all (a JSON "\ud800"). Postgres' jsonb
 * refuses it, its text columns get U+FFFD instead.
 */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text from outside (an ERP's answer, a receiver's error page) as the service keeps it: one line
 * of printable text. Postgres' text refuses a NUL outright (an error message holding one would
 * fail the very write that records the failure, for ever), so control characters and runs of
 * whitespace become one space; a UTF-16 surrogate without its pair becomes U+FFFD (as the driver
 * would write it anyway); at most `max` characters, cut between characters, never inside a pair.
 */
export function storableText(text: string, max: number): string {
  const flat = text.replace(/[\s\u0000-\u001F\u007F]+/g, ' ').replace(new RegExp(LONE_SURROGATE, 'g'), '\uFFFD').trim();
  if (flat.length <= max) return flat;
  const characters = Array.from(flat);
  return characters.length <= max ? flat : `${characters.slice(0, max).join('')}…`;
}
