/**
 * The file name of an uploaded multipart part, as the client meant it (RFC 7578 §4.2).
 *
 * `filename="…"` carries no charset: clients today (curl, browsers) send raw UTF-8, legacy ones
 * the charset of their form, which for our users is ISO-8859-1 ("P\xE9rez.xml"). Such bytes are
 * never valid UTF-8 in practice (an accented letter is not followed by a continuation byte), so
 * a name that is valid UTF-8 is read as UTF-8 and any other as Latin-1: it was stored with U+FFFD
 * in place of its letters ("P�rez.xml"). `filename*=<charset>''…` (RFC 8187) names its charset
 * and is decoded by it; bytes invalid in that charset have no meaning, so the name is refused.
 *
 * `received` is busboy's reading with defParamCharset latin1: filename's bytes one character
 * each, filename* already decoded by its charset (so a character above U+00FF, or U+FFFD for
 * bytes it could not decode, can only come from there).
 */
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** The name, or null when its declared charset cannot decode it. */
export function multipartFileName(received: string): string | null {
  if ([...received].some((character) => character.codePointAt(0)! > 0xff)) return received.includes('\uFFFD') ? null : received;
  const bytes = Buffer.from(received, 'latin1');
  try {
    return UTF8.decode(bytes);
  } catch {
    return received;
  }
}
