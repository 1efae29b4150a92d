/**
 * File type by content (magic bytes), never by name: what an upload or a ZIP entry really is.
 */

export type DetectedFileType = 'xml' | 'zip' | 'pdf';

const PDF_MAGIC = Buffer.from('%PDF-', 'latin1');
/** PDF readers accept the header anywhere in the first 1024 bytes. */
const PDF_WINDOW = 1024;
const ZIP_LOCAL_HEADER = Buffer.from([0x50, 0x4b, 0x03, 0x04]);
const ZIP_EMPTY_ARCHIVE = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

function startsWith(bytes: Uint8Array, magic: Uint8Array, at = 0): boolean {
  if (bytes.length < at + magic.length) return false;
  for (let index = 0; index < magic.length; index += 1) if (bytes[at + index] !== magic[index]) return false;
  return true;
}

function isXmlWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** After '<': '?' (declaration / PI), '!' (comment), or a name start (letter, '_', ':', non-ASCII). */
function isMarkupStart(code: number | undefined): boolean {
  if (code === undefined) return false;
  return (
    code === 0x3f ||
    code === 0x21 ||
    code === 0x5f ||
    code === 0x3a ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x61 && code <= 0x7a) ||
    code >= 0x80
  );
}

/** Optional UTF-8 BOM, optional whitespace, then '<' followed by markup. Also UTF-16 with a BOM. */
function looksLikeXml(bytes: Uint8Array): boolean {
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    const littleEndian = bytes[0] === 0xff;
    let position = 2;
    const unitAt = (at: number) => (littleEndian ? bytes[at] | (bytes[at + 1] << 8) : (bytes[at] << 8) | bytes[at + 1]);
    while (position + 1 < bytes.length && isXmlWhitespace(unitAt(position))) position += 2;
    return position + 3 < bytes.length && unitAt(position) === 0x3c && isMarkupStart(unitAt(position + 2));
  }
  let position = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0;
  while (position < bytes.length && isXmlWhitespace(bytes[position])) position += 1;
  return bytes[position] === 0x3c && isMarkupStart(bytes[position + 1]);
}

function findPdfHeader(bytes: Uint8Array): boolean {
  const window = Math.min(bytes.length, PDF_WINDOW + PDF_MAGIC.length - 1);
  for (let at = 0; at + PDF_MAGIC.length <= window; at += 1) if (startsWith(bytes, PDF_MAGIC, at)) return true;
  return false;
}

/**
 * 'zip' for a local file header ('PK\x03\x04') or an empty archive ('PK\x05\x06') at offset 0;
 * 'pdf' for '%PDF-' at offset 0; 'xml' for (BOM) (whitespace) '<' + markup; 'pdf' for '%PDF-'
 * elsewhere in the first 1024 bytes; null otherwise.
 */
export function detectFileType(bytes: Uint8Array): DetectedFileType | null {
  if (!bytes || bytes.length === 0) return null;
  if (startsWith(bytes, ZIP_LOCAL_HEADER) || startsWith(bytes, ZIP_EMPTY_ARCHIVE)) return 'zip';
  if (startsWith(bytes, PDF_MAGIC)) return 'pdf';
  // XML before the 1024-byte PDF window: an XML whose text mentions '%PDF-' stays XML.
  if (looksLikeXml(bytes)) return 'xml';
  if (findPdfHeader(bytes)) return 'pdf';
  return null;
}

const EXTENSIONS: Record<DetectedFileType, string> = { xml: 'xml', zip: 'zip', pdf: 'pdf' };
const CONTENT_TYPES: Record<DetectedFileType, string> = {
  xml: 'application/xml',
  zip: 'application/zip',
  pdf: 'application/pdf',
};

/** File name extension for a type, without the dot: 'xml', 'zip', 'pdf'. */
export function extensionFor(type: DetectedFileType): string {
  return EXTENSIONS[type];
}

/** MIME type for a type: 'application/xml', 'application/zip', 'application/pdf'. */
export function contentTypeFor(type: DetectedFileType): string {
  return CONTENT_TYPES[type];
}
