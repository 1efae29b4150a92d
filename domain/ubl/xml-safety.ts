/**
 * Checks run on the raw text of an uploaded XML BEFORE any parser sees it: size, DTDs (XXE,
 * entity expansion), and one cheap linear pre-scan that counts elements, attributes and nesting
 * depth, bounds single text and attribute nodes, and checks well-formedness as far as the tree
 * builder needs (every end tag closes the open element, one root, nothing truncated). A document
 * over a limit is refused before the full parse, which is far more expensive (fast-xml-parser
 * does 3–11 MB/s; the pre-scan well over 200 MB/s). Limits: docs/operations.md.
 */
import { UblParseError } from './types';

export type XmlLimits = {
  /** Whole document, in bytes (UTF-8). */
  maxBytes: number;
  /** Nesting depth of elements. */
  maxDepth: number;
  /**
   * One text node, in characters. As large as the document may be: an AttachedDocument whose
   * invoice is written as escaped text (not CDATA), or an invoice carrying a base64 attachment,
   * is one text node of most of the file; parsing is linear in it (about 0.1 s per MB in the
   * CPU pool). CDATA sections only count against maxBytes.
   */
  maxTextChars: number;
  /** One attribute value, in characters: DIAN's are short (a scheme name, a currency). */
  maxAttributeChars: number;
  /** Elements in the document (an embedded document is counted on its own when it is parsed). */
  maxElements: number;
  /** Attributes in the document, namespace declarations included. */
  maxAttributes: number;
};

/**
 * Sized from real DIAN documents (20–45 KB: about 400–900 elements and 300–700 attributes; an
 * invoice of 5,000 lines stays under 10 MB and 250,000 elements) with room to spare.
 */
export const DEFAULT_XML_LIMITS: XmlLimits = {
  maxBytes: 10 * 1024 * 1024,
  maxDepth: 100,
  maxTextChars: 10 * 1024 * 1024,
  maxAttributeChars: 1024 * 1024,
  maxElements: 250_000,
  maxAttributes: 500_000,
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

function overLimit(message: string): UblParseError {
  return new UblParseError('xml_too_large', message);
}

/**
 * A text node at least this long is handed to the parser as a short stand-in and put back after
 * (domain/ubl/xml-tree.ts): fast-xml-parser builds a text node one character at a time, and its
 * intermediate strings took about 33 bytes of heap per character (a 5 MB node 167 MB), so a text
 * node of 6.5 MB or more ran out of the CPU pool's 256 MB job budget.
 */
export const LARGE_TEXT_CHARS = 64 * 1024;

/** What the pre-scan counted, and where the document's large text nodes are ([start, end) offsets). */
export type XmlScan = { elements: number; attributes: number; maxDepth: number; chars: number; largeTexts: { start: number; end: number }[] };

const LT = 0x3c;
const GT = 0x3e;
const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const EQUALS = 0x3d;
const DQUOTE = 0x22;
const SQUOTE = 0x27;

const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x09 || code === 0x0d;

/**
 * The pre-scan: one linear pass over the markup, jumping from '<' to '<' with indexOf and reading
 * only the inside of tags character by character. Counts elements and attributes, tracks depth,
 * bounds text and attribute lengths, matches every end tag to the open element, and refuses markup
 * declarations (`<!...>` other than comments and CDATA), text or CDATA outside the root, a second
 * root and anything truncated. Stops at the first limit exceeded, so hostile input costs at most
 * the bytes up to that point.
 */
export function prescanXml(xml: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlScan {
  const length = xml.length;
  const open: string[] = [];
  let elements = 0;
  let attributes = 0;
  let deepest = 0;
  let rootSeen = false;
  let position = 0;
  const largeTexts: XmlScan['largeTexts'] = [];
  while (position < length) {
    const lt = xml.indexOf('<', position);
    const textEnd = lt === -1 ? length : lt;
    if (textEnd - position > limits.maxTextChars) throw overLimit(`a text node is longer than ${limits.maxTextChars} characters`);
    if (open.length > 0 && textEnd - position >= LARGE_TEXT_CHARS) largeTexts.push({ start: position, end: textEnd });
    if (open.length === 0 && textEnd > position && xml.slice(position, textEnd).trim() !== '') {
      throw malformed(rootSeen ? 'text after the root element' : 'text before the root element (is this XML?)');
    }
    if (lt === -1) break;
    const next = xml.charCodeAt(lt + 1);
    if (next === BANG) {
      if (xml.startsWith('<!--', lt)) {
        position = skipPast(xml, '-->', lt + 4, 'comment');
      } else if (xml.startsWith('<![CDATA[', lt)) {
        if (open.length === 0) throw malformed('a CDATA section outside the root element');
        position = skipPast(xml, ']]>', lt + 9, 'CDATA section');
      } else {
        throw new UblParseError('forbidden_dtd', 'markup declarations (<!...>) are not accepted');
      }
    } else if (next === QUESTION) {
      position = skipPast(xml, '?>', lt + 2, 'processing instruction');
    } else if (next === SLASH) {
      const gt = xml.indexOf('>', lt + 2);
      if (gt === -1) throw malformed('unterminated end tag (the document is truncated?)');
      const name = open.pop();
      const written = xml.slice(lt + 2, gt).trimEnd();
      if (name === undefined) throw malformed(`end tag </${written.slice(0, 100)}> without a start tag`);
      if (written !== name) throw malformed(`end tag </${written.slice(0, 100)}> does not close <${name.slice(0, 100)}>`);
      position = gt + 1;
    } else {
      if (open.length === 0 && rootSeen) throw malformed('more than one root element');
      rootSeen = true;
      elements += 1;
      if (elements > limits.maxElements) throw overLimit(`the document has more than ${limits.maxElements} elements`);
      // The name runs to the first space, '/' or '>'.
      let cursor = lt + 1;
      let code = xml.charCodeAt(cursor);
      while (cursor < length && !isSpace(code) && code !== SLASH && code !== GT && code !== LT) code = xml.charCodeAt(++cursor);
      if (cursor === lt + 1) throw malformed(`a '<' that starts no tag at offset ${lt}`);
      const nameEnd = cursor;
      // Attributes: every '=' outside quotes must be followed by a quoted value.
      let selfClosing = false;
      for (;;) {
        if (cursor >= length) throw malformed('unterminated start tag (the document is truncated?)');
        code = xml.charCodeAt(cursor);
        if (code === GT) {
          selfClosing = xml.charCodeAt(cursor - 1) === SLASH;
          break;
        }
        if (code === EQUALS) {
          attributes += 1;
          if (attributes > limits.maxAttributes) throw overLimit(`the document has more than ${limits.maxAttributes} attributes`);
          cursor += 1;
          while (isSpace(xml.charCodeAt(cursor))) cursor += 1;
          const quote = xml.charCodeAt(cursor);
          if (quote !== DQUOTE && quote !== SQUOTE) throw malformed(`an attribute value without quotes in <${xml.slice(lt + 1, Math.min(nameEnd, lt + 101))}>`);
          const end = xml.indexOf(quote === DQUOTE ? '"' : "'", cursor + 1);
          if (end === -1) throw malformed('unterminated attribute value (the document is truncated?)');
          if (end - cursor - 1 > limits.maxAttributeChars) throw overLimit(`an attribute value is longer than ${limits.maxAttributeChars} characters`);
          cursor = end + 1;
        } else if (code === LT) {
          throw malformed(`unexpected '<' inside a tag at offset ${cursor}`);
        } else {
          cursor += 1;
        }
      }
      if (!selfClosing) {
        open.push(xml.slice(lt + 1, nameEnd));
        if (open.length > limits.maxDepth) throw overLimit(`elements are nested deeper than ${limits.maxDepth} levels`);
        if (open.length > deepest) deepest = open.length;
      }
      position = cursor + 1;
    }
  }
  if (open.length > 0) throw malformed(`<${open[open.length - 1].slice(0, 100)}> is never closed (the document is truncated?)`);
  if (!rootSeen) throw malformed('the XML has no root element');
  return { elements, attributes, maxDepth: deepest, chars: length, largeTexts };
}

function skipPast(xml: string, terminator: string, from: number, what: string): number {
  const end = xml.indexOf(terminator, from);
  if (end === -1) throw malformed(`unterminated ${what} (the document is truncated?)`);
  return end + terminator.length;
}

/** All raw-text checks, in order: DTD anywhere (also escaped, for embedded documents), then the pre-scan. */
export function assertSafeXml(xml: string, limits: XmlLimits = DEFAULT_XML_LIMITS): XmlScan {
  if (xml.trim() === '') throw malformed('the XML is empty');
  assertNoDtd(xml);
  assertXmlCharacters(xml);
  return prescanXml(xml, limits);
}

/** Characters XML 1.0 does not allow anywhere in a document (its `Char` production), as written. */
const FORBIDDEN_CHARACTER = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/;

/**
 * Refuses a control character XML 1.0 forbids (a NUL byte, \x01 …): no DIAN document can carry
 * one (DIAN validates with a conforming parser), and a NUL could not even be stored (Postgres
 * text refuses it), so an import that kept it would fail at its write, over and over.
 */
export function assertXmlCharacters(xml: string): void {
  const match = FORBIDDEN_CHARACTER.exec(xml);
  if (match) {
    const code = match[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0');
    throw malformed(`the XML contains the character U+${code} at offset ${match.index}, which XML does not allow`);
  }
}

/** Whether a character reference (&#…;) names a character XML 1.0 allows. */
export function isXmlCharacter(code: number): boolean {
  return code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
}
