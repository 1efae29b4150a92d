/**
 * A small element tree built from fast-xml-parser's output, navigated by LOCAL names
 * (namespace prefixes are removed by the parser), where every child group is an array
 * whether the element occurs once or many times.
 */
import { XMLParser } from 'fast-xml-parser';
import { DEFAULT_XML_LIMITS } from './xml-safety';
import { UblParseError } from './types';

export type XmlElement = {
  name: string;
  attributes: Record<string, string>;
  /** Text content (entities decoded, CDATA appended verbatim), trimmed. */
  text: string;
  children: XmlElement[];
};

const ATTRIBUTE_PREFIX = '@_';
const TEXT = '#text';
const CDATA = '#cdata';

const parser = new XMLParser({
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
  // Every element becomes an array: repeating groups (InvoiceLine, TaxTotal, TaxSubtotal,
  // PartyName, Note...) read the same whether they occur once or many times.
  isArray: (_name: string, _path: unknown, _isLeaf: boolean, isAttribute: boolean) => !isAttribute,
});

const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/**
 * Decodes the five predefined entities and numeric character references, nothing else
 * (no DTD-defined entity can exist: DTDs are rejected before parsing). Unknown references
 * are left as written.
 */
export function decodeEntities(value: string): string {
  if (!value.includes('&')) return value;
  return value.replace(/&(#x[0-9a-fA-F]{1,6}|#[0-9]{1,7}|[A-Za-z]+);/g, (whole, reference: string) => {
    if (reference.startsWith('#')) {
      const code = reference[1] === 'x' ? parseInt(reference.slice(2), 16) : parseInt(reference.slice(1), 10);
      return code > 0 && code <= 0x10ffff && !(code >= 0xd800 && code <= 0xdfff) ? String.fromCodePoint(code) : whole;
    }
    return PREDEFINED[reference] ?? whole;
  });
}

function texts(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(texts);
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object' && TEXT in value) return texts((value as Record<string, unknown>)[TEXT]);
  return [];
}

function toElement(name: string, value: unknown): XmlElement {
  const element: XmlElement = { name, attributes: {}, text: '', children: [] };
  if (typeof value === 'string') {
    element.text = decodeEntities(value).trim();
    return element;
  }
  if (!value || typeof value !== 'object') return element;
  let text = '';
  let cdata = '';
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (key === TEXT) text += texts(child).join('');
    else if (key === CDATA) cdata += texts(child).join('');
    else if (key.startsWith(ATTRIBUTE_PREFIX)) {
      if (typeof child === 'string') element.attributes[key.slice(ATTRIBUTE_PREFIX.length)] = decodeEntities(child);
    } else {
      for (const item of Array.isArray(child) ? child : [child]) element.children.push(toElement(key, item));
    }
  }
  element.text = (decodeEntities(text) + cdata).trim();
  return element;
}

/**
 * Parses text that already passed the raw-text safety checks and returns its root element.
 * Throws UblParseError('malformed_xml') when the parser fails or there is not exactly one root.
 */
export function parseXmlTree(xml: string): XmlElement {
  let parsed: Record<string, unknown>;
  try {
    parsed = parser.parse(xml) as Record<string, unknown>;
  } catch (error) {
    throw new UblParseError('malformed_xml', `the XML could not be parsed: ${error instanceof Error ? error.message : String(error)}`);
  }
  const roots = Object.entries(parsed).filter(([key]) => !key.startsWith('?') && key !== TEXT && key !== CDATA);
  const elements = roots.flatMap(([key, value]) => (Array.isArray(value) ? value : [value]).map((item) => toElement(key, item)));
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
