/**
 * A small element tree built from fast-xml-parser's output, navigated by LOCAL names
 * (namespace prefixes are removed by the parser), where every child group is an array
 * whether the element occurs once or many times.
 */
import { XMLParser } from 'fast-xml-parser';
import { DEFAULT_XML_LIMITS, isXmlCharacter, type XmlScan } from './xml-safety';
import { UblParseError } from './types';

export type XmlElement = {
  name: string;
  attributes: Record<string, string>;
  /** Text content (entities decoded, CDATA appended verbatim), trimmed. */
  text: string;
  children: XmlElement[];
};

const ATTRIBUTE_PREFIX = '@_';
const ATTRIBUTES = ':@';
const TEXT = '#text';
const CDATA = '#cdata';

// preserveOrder: every element is { name: children[], ':@'?: attributes }, text { '#text' }, CDATA
// { '#cdata': [{ '#text' }] }: cheaper for fast-xml-parser than grouping children by name, and
// maps one to one onto XmlElement.
const parser = new XMLParser({
  preserveOrder: true,
  processEntities: false,
  htmlEntities: false,
  ignoreAttributes: false,
  attributeNamePrefix: ATTRIBUTE_PREFIX,
  removeNSPrefix: true,
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  textNodeName: TEXT,
  cdataPropName: CDATA,
  ignoreDeclaration: true,
  ignorePiTags: true,
  jPath: false,
  maxNestedTags: DEFAULT_XML_LIMITS.maxDepth + 1,
});

type OrderedNode = Record<string, unknown>;

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decodes the five predefined entities and numeric character references, nothing else
 * (no DTD-defined entity can exist: DTDs are rejected before parsing). Unknown named references
 * are left as written; a character reference to a character XML does not allow (&#0;, &#1;, a
 * surrogate) is malformed XML, as it is for DIAN's validator.
 */
export function decodeEntities(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[A-Za-z]+);/g, (whole, reference: string) => {
    if (reference.startsWith('#')) {
      const code = reference[1] === 'x' ? parseInt(reference.slice(2), 16) : parseInt(reference.slice(1), 10);
      if (!isXmlCharacter(code)) throw new UblParseError('malformed_xml', `the character reference ${whole.slice(0, 20)} names a character XML does not allow`);
      return String.fromCodePoint(code);
    }
    return PREDEFINED[reference] ?? whole;
  });
}

function cdataText(nodes: unknown): string {
  let text = '';
  if (Array.isArray(nodes)) for (const node of nodes as OrderedNode[]) if (typeof node[TEXT] === 'string') text += node[TEXT];
  return text;
}

/**
 * Large text nodes (XmlScan.largeTexts) are parsed as a stand-in, a private-use character and the
 * node's index, and their text put back by toElement: what fast-xml-parser would have given, each
 * node trimmed on its own (trimValues), without its cost in memory. Used only when the document
 * has no such character of its own, so no text can pass for a stand-in.
 */
const STAND_IN = '\uE000';
const STAND_IN_TEXT = /^\uE000(\d+)$/;

type LargeTexts = readonly string[];

function withStandIns(xml: string, spans: XmlScan['largeTexts']): { xml: string; texts: LargeTexts } {
  if (spans.length === 0 || xml.includes(STAND_IN)) return { xml, texts: [] };
  const pieces: string[] = [];
  const texts: string[] = [];
  let from = 0;
  for (const { start, end } of spans) {
    pieces.push(xml.slice(from, start), `${STAND_IN}${texts.length}`);
    texts.push(xml.slice(start, end).trim());
    from = end;
  }
  pieces.push(xml.slice(from));
  return { xml: pieces.join(''), texts };
}

function textOf(value: unknown, largeTexts: LargeTexts): string {
  const written = typeof value === 'string' ? value : String(value);
  if (largeTexts.length === 0) return written;
  const standIn = STAND_IN_TEXT.exec(written);
  return standIn ? (largeTexts[Number(standIn[1])] ?? written) : written;
}

function toElement(name: string, nodes: OrderedNode[], attributes: OrderedNode | undefined, largeTexts: LargeTexts): XmlElement {
  const element: XmlElement = { name, attributes: {}, text: '', children: [] };
  if (attributes) {
    for (const key in attributes) {
      const value = attributes[key];
      if (typeof value === 'string') element.attributes[key.slice(ATTRIBUTE_PREFIX.length)] = decodeEntities(value);
    }
  }
  let text = '';
  let cdata = '';
  for (const node of nodes) {
    for (const key in node) {
      if (key === ATTRIBUTES) continue;
      const value = node[key];
      if (key === TEXT) text += textOf(value, largeTexts);
      else if (key === CDATA) cdata += cdataText(value);
      else element.children.push(toElement(key, value as OrderedNode[], node[ATTRIBUTES] as OrderedNode | undefined, largeTexts));
      break;
    }
  }
  element.text = (decodeEntities(text) + cdata).trim();
  return element;
}

/**
 * Parses text that already passed the raw-text safety checks (`scan`: what they found, whose large
 * text nodes are parsed as stand-ins) and returns its root element.
 * Throws UblParseError('malformed_xml') when the parser fails or there is not exactly one root.
 */
export function parseXmlTree(xml: string, scan?: Pick<XmlScan, 'largeTexts'>): XmlElement {
  const { xml: parsedXml, texts } = withStandIns(xml, scan?.largeTexts ?? []);
  let parsed: OrderedNode[];
  try {
    parsed = parser.parse(parsedXml) as OrderedNode[];
  } catch (error) {
    throw new UblParseError('malformed_xml', `the XML could not be parsed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const elements: XmlElement[] = [];
  for (const node of parsed) {
    for (const key in node) {
      if (key === ATTRIBUTES) continue;
      if (key !== TEXT && key !== CDATA && !key.startsWith('?')) {
        elements.push(toElement(key, node[key] as OrderedNode[], node[ATTRIBUTES] as OrderedNode | undefined, texts));
      }
      break;
    }
  }
  if (elements.length !== 1) {
    throw new UblParseError('malformed_xml', `an XML document has exactly one root element, found ${elements.length}`);
  }
  return elements[0];
}

// ---------------------------------------------------------------- navigation by local names

/** Direct children with this local name (always an array). */
export function children(element: XmlElement | null | undefined, name: string): XmlElement[] {
  return element ? element.children.filter((child) => child.name === name) : [];
}

/** First direct child with this local name. */
export function child(element: XmlElement | null | undefined, name: string): XmlElement | null {
  return element?.children.find((candidate) => candidate.name === name) ?? null;
}

/** Every element reached by following the path of local names through all repetitions. */
export function all(element: XmlElement | null | undefined, path: string): XmlElement[] {
  let current = element ? [element] : [];
  for (const name of path.split('/')) {
    current = current.flatMap((node) => children(node, name));
    if (current.length === 0) break;
  }
  return current;
}

/** First element reached by the path (searching every repetition of each step). */
export function first(element: XmlElement | null | undefined, path: string): XmlElement | null {
  return all(element, path)[0] ?? null;
}

/** Trimmed text of the first element on the path that has non-empty text; null otherwise. */
export function text(element: XmlElement | null | undefined, path: string): string | null {
  for (const node of all(element, path)) if (node.text !== '') return node.text;
  return null;
}

/** Trimmed, non-empty attribute value or null. */
export function attribute(element: XmlElement | null | undefined, name: string): string | null {
  const value = element?.attributes[name]?.trim();
  return value ? value : null;
}
