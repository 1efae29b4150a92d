/**
 * Checks run on the raw text of an uploaded XML BEFORE any parser sees it: size, DTDs (XXE,
 * entity expansion), nesting depth and the length of single text and attribute nodes, then
 * well-formedness. Every check is a linear scan: hostile input fails fast and never hangs.
 */
import { XMLValidator } from 'fast-xml-parser';
import { UblParseError } from './types';

export type XmlLimits = {
  /** Whole document, in bytes (UTF-8). */
  maxBytes: number;
  /** Nesting depth of elements. */
  maxDepth: number;
  /** One text node or attribute value, in characters. CDATA sections only count against maxBytes. */
  maxNodeChars: number;
};

export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxDepth: 100,
  maxNodeChars: 1024 * 1024,
};

const UTF8_BOM = [0xef, 0xbb, 0xbf];
const SINGLE_BYTE_ENCODINGS = /^(iso-?8859-?1|latin-?1|windows-1252|cp1252|us-ascii|ascii)$/i;

function tooLarge(bytes: number, limits: XmlLimits): UblParseError {
  return new UblParseError('xml_too_large', `the XML is ${bytes} bytes; the limit is ${limits.maxBytes} bytes`);
}

/**
 * Turns the upload into text: checks the size, strips a BOM, honours UTF-16 BOMs and a
 * single-byte `encoding` declaration (ISO-8859-1 / windows-1252), and falls back to
 * windows-1252 when bytes declared (or assumed) UTF-8 are not valid UTF-8.
 */
export function decodeXmlInput(input: string | Uint8Array, limits: XmlLimits = DEFAULT_XML_LIMITS): string {
  if (typeof input === 'string') {
    if (input.length > limits.maxBytes || Buffer.byteLength(input, 'utf8') > limits.maxBytes) {
      throw tooLarge(Buffer.byteLength(input, 'utf8'), limits);
    }
    return input.charCodeAt(0) === 0xfeff ? input.slice(1) : input;
  }
  if (!(input instanceof Uint8Array)) {
    throw new UblParseError('malformed_xml', 'the XML must be given as a string or a Buffer');
  }
  if (input.length > limits.maxBytes) throw tooLarge(input.length, limits);
  const bytes = Buffer.from(input.buffer, input.byteOffset, input.length);
  if (UTF8_BOM.every((byte, index) => bytes[index] === byte)) return decodeUtf8(bytes.subarray(3));
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder('utf-16le').decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder('utf-16be').decode(bytes.subarray(2));
  const declaration = /^\s*<\?xml[^>]*?encoding\s*=\s*["']([A-Za-z0-9._-]+)["']/.exec(
    bytes.subarray(0, 200).toString('latin1'),
  );
  if (declaration && SINGLE_BYTE_ENCODINGS.test(declaration[1])) {
    return new TextDecoder('windows-1252').decode(bytes);
  }
  return decodeUtf8(bytes);
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('windows-1252').decode(bytes);
  }
}

/**
 * Rejects any document type or entity declaration, wherever it appears in the raw text:
 * in the prolog, in a CDATA section (an embedded document) or entity-escaped (`&lt;!DOCTYPE`).
 */
export function assertNoDtd(xml: string): void {
  const match = /<!\s*(DOCTYPE|ENTITY|ELEMENT|ATTLIST|NOTATION)\b|&lt;!\s*(DOCTYPE|ENTITY)\b|&#0*60;!\s*(DOCTYPE|ENTITY)\b|&#x0*3c;!\s*(DOCTYPE|ENTITY)\b/i.exec(
    xml,
  );
  if (match) {
    throw new UblParseError('forbidden_dtd', `document type and entity declarations are not accepted (found "${match[0]}")`);
  }
}

function malformed(message: string): UblParseError {
  return new UblParseError('malformed_xml', message);
}

/**
 * One linear pass over the markup: nesting depth, length of text nodes and attribute values,
 * unterminated comments / CDATA / tags, and markup declarations (`<!...`) other than comments
 * and CDATA.
 */
export function assertStructureLimits(xml: string, limits: XmlLimits = DEFAULT_XML_LIMITS): void {
  const length = xml.length;
  let depth = 0;
  let position = 0;
  while (position < length) {
    const open = xml.indexOf('<', position);
    const textEnd = open === -1 ? length : open;
    if (textEnd - position > limits.maxNodeChars) {
      throw new UblParseError('xml_too_large', `a text node is longer than ${limits.maxNodeChars} characters`);
    }
    if (open === -1) break;
    if (xml.startsWith('<!--', open)) {
      position = skipPast(xml, '-->', open + 4, 'comment');
    } else if (xml.startsWith('<![CDATA[', open)) {
      position = skipPast(xml, ']]>', open + 9, 'CDATA section');
    } else if (xml.startsWith('<?', open)) {
      position = skipPast(xml, '?>', open + 2, 'processing instruction');
    } else if (xml.startsWith('<!', open)) {
      throw new UblParseError('forbidden_dtd', 'markup declarations (<!...>) are not accepted');
    } else if (xml.charCodeAt(open + 1) === 0x2f /* / */) {
      position = skipPast(xml, '>', open + 2, 'end tag');
      depth -= 1;
    } else {
      const close = scanStartTag(xml, open + 1, limits);
      if (xml.charCodeAt(close - 1) !== 0x2f /* / */) {
        depth += 1;
        if (depth > limits.maxDepth) {
          throw new UblParseError('xml_too_large', `elements are nested deeper than ${limits.maxDepth} levels`);
        }
      }
      position = close + 1;
    }
  }
}

function skipPast(xml: string, terminator: string, from: number, what: string): number {
  const end = xml.indexOf(terminator, from);
  if (end === -1) throw malformed(`unterminated ${what} (the document is truncated?)`);
  return end + terminator.length;
}

/** Returns the index of the '>' closing a start tag, honouring quoted attribute values. */
function scanStartTag(xml: string, from: number, limits: XmlLimits): number {
  let position = from;
  while (position < xml.length) {
    const code = xml.charCodeAt(position);
    if (code === 0x3e /* > */) return position;
    if (code === 0x22 /* " */ || code === 0x27 /* ' */) {
      const end = xml.indexOf(code === 0x22 ? '"' : "'", position + 1);
      if (end === -1) throw malformed('unterminated attribute value (the document is truncated?)');
      if (end - position - 1 > limits.maxNodeChars) {
        throw new UblParseError('xml_too_large', `an attribute value is longer than ${limits.maxNodeChars} characters`);
      }
      position = end + 1;
    } else if (code === 0x3c /* < */) {
      throw malformed(`unexpected '<' inside a tag at offset ${position}`);
    } else {
      position += 1;
    }
  }
  throw malformed('unterminated start tag (the document is truncated?)');
}

/** Well-formedness check by fast-xml-parser's validator (run after the limits above). */
export function assertWellFormed(xml: string): void {
  let result: ReturnType<typeof XMLValidator.validate>;
  try {
    result = XMLValidator.validate(xml, { allowBooleanAttributes: false });
  } catch (error) {
    throw malformed(`the XML could not be validated: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (result !== true) {
    const { msg, line, col } = result.err;
    throw malformed(`${msg} (line ${line}, column ${col})`);
  }
}

/** All raw-text checks, in order: DTD, structure limits, well-formedness. */
export function assertSafeXml(xml: string, limits: XmlLimits = DEFAULT_XML_LIMITS): void {
  if (xml.trim() === '') throw malformed('the XML is empty');
  assertNoDtd(xml);
  assertStructureLimits(xml, limits);
  assertWellFormed(xml);
}
