/**
 * SOAP 1.2 + WS-Addressing + WS-Security (X.509 BinarySecurityToken) as DIAN's
 * WcfDianCustomerServices expects it, and the matching verification used by the simulator.
 * See README.md in this folder for what is confirmed about DIAN's protocol and what is assumed.
 */
import { createHash, randomUUID, sign, verify, X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { XMLParser } from 'fast-xml-parser';
import { ExclusiveCanonicalization } from 'xml-crypto';
import { signingKey } from '../../domain/dian/signing-key';

export const NS = {
  soap: 'http://www.w3.org/2003/05/soap-envelope',
  wsa: 'http://www.w3.org/2005/08/addressing',
  wsse: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd',
  wsu: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd',
  ds: 'http://www.w3.org/2000/09/xmldsig#',
  wcf: 'http://wcf.dian.colombia',
  /** Namespace of the simulator-only extension operations (never sent to DIAN). */
  ext: 'urn:dian-simulator:extensions',
} as const;

export const ALGORITHMS = {
  excC14n: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  rsaSha256: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
  sha256: 'http://www.w3.org/2001/04/xmlenc#sha256',
  x509v3: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-x509-token-profile-1.0#X509v3',
  base64Binary: 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-soap-message-security-1.0#Base64Binary',
} as const;

/**
 * Operations of IWcfDianCustomerServices this project uses, plus the simulator's extension. The
 * last three are declared by DIAN's interface but their use is ASSUMED (README.md, "Bulk listing").
 */
export const DIAN_OPERATIONS = [
  'SendEventUpdateStatus',
  'GetXmlByDocumentKey',
  'GetStatusEvent',
  'BulkDocumentDownloadAsync',
  'GetStatusBulkDocumentDownload',
  'GetDocIdentifierWithEvents',
] as const;
export const EXTENSION_OPERATIONS = ['ListReceivedDocuments'] as const;
export type DianOperation = (typeof DIAN_OPERATIONS)[number];
export type ExtensionOperation = (typeof EXTENSION_OPERATIONS)[number];
export type SoapOperation = DianOperation | ExtensionOperation;

const DIAN_ACTION_BASE = 'http://wcf.dian.colombia/IWcfDianCustomerServices/';
const EXTENSION_ACTION_BASE = 'urn:dian-simulator:extensions/';

export function isExtensionOperation(operation: string): operation is ExtensionOperation {
  return (EXTENSION_OPERATIONS as readonly string[]).includes(operation);
}

export function soapAction(operation: SoapOperation): string {
  return (isExtensionOperation(operation) ? EXTENSION_ACTION_BASE : DIAN_ACTION_BASE) + operation;
}

/** Operation named by a wsa:Action, or null when the action is not one we speak. */
export function operationForAction(action: string): SoapOperation | null {
  for (const operation of [...DIAN_OPERATIONS, ...EXTENSION_OPERATIONS]) {
    if (soapAction(operation) === action) return operation;
  }
  return null;
}

export type SoapCredentials = { privateKeyPem: string; certificatePem: string };

export type SoapRequest = { action: string; envelope: string; contentType: string };

export type BuildSoapOptions = {
  now?: Date;
  /** Lifetime of the wsu:Timestamp; 60 s by default. */
  ttlSeconds?: number;
  /**
   * Sign the wsu:Timestamp as well as wsa:To (default true). Some public DIAN clients sign only
   * wsa:To; see README.md. The simulator requires both.
   */
  signTimestamp?: boolean;
};

export function xmlEscape(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

export function pemToBase64Der(certificatePem: string): string {
  const match = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(certificatePem);
  if (!match) throw new Error('certificatePem holds no PEM certificate');
  return match[1]!.replace(/\s+/g, '');
}

export function base64DerToPem(base64: string): string {
  const body = base64.replace(/\s+/g, '').replace(/(.{64})/g, '$1\n').replace(/\n$/, '');
  return `-----BEGIN CERTIFICATE-----\n${body}\n-----END CERTIFICATE-----\n`;
}

/**
 * A signed SOAP 1.2 request. `body` holds the operation's parameters in order
 * (e.g. `{ trackId: cufe }`); values are escaped.
 */
export function buildSoapRequest(
  operation: SoapOperation,
  body: Record<string, string>,
  credentials: SoapCredentials,
  to: string,
  options: BuildSoapOptions = {},
): SoapRequest {
  const action = soapAction(operation);
  const created = options.now ?? new Date();
  const expires = new Date(created.getTime() + (options.ttlSeconds ?? 60) * 1000);
  const suffix = randomUUID();
  const ids = { timestamp: `TS-${suffix}`, token: `X509-${suffix}`, to: `id-${suffix}` };
  const bodyNs = isExtensionOperation(operation) ? NS.ext : NS.wcf;
  const params = Object.entries(body)
    .map(([name, value]) => `<wcf:${name}>${xmlEscape(value)}</wcf:${name}>`)
    .join('');
  const unsigned =
    `<soap:Envelope xmlns:soap="${NS.soap}" xmlns:wcf="${bodyNs}">` +
    `<soap:Header xmlns:wsa="${NS.wsa}">` +
    `<wsse:Security soap:mustUnderstand="1" xmlns:wsse="${NS.wsse}" xmlns:wsu="${NS.wsu}">` +
    `<wsu:Timestamp wsu:Id="${ids.timestamp}"><wsu:Created>${isoSeconds(created)}</wsu:Created>` +
    `<wsu:Expires>${isoSeconds(expires)}</wsu:Expires></wsu:Timestamp>` +
    `<wsse:BinarySecurityToken EncodingType="${ALGORITHMS.base64Binary}" ValueType="${ALGORITHMS.x509v3}" wsu:Id="${ids.token}">` +
    `${pemToBase64Der(credentials.certificatePem)}</wsse:BinarySecurityToken>` +
    `</wsse:Security>` +
    `<wsa:Action>${xmlEscape(action)}</wsa:Action>` +
    `<wsa:To wsu:Id="${ids.to}" xmlns:wsu="${NS.wsu}">${xmlEscape(to)}</wsa:To>` +
    `</soap:Header>` +
    `<soap:Body><wcf:${operation}>${params}</wcf:${operation}></soap:Body>` +
    `</soap:Envelope>`;

  // The signature is computed here rather than by xml-crypto's SignedXml, which parsed the
  // envelope into a DOM and ran XPath over it on every call (≈ 3–10 ms per request, two
  // requests per imported DIAN document): the envelope is ours, so the exclusive canonical forms
  // of the signed elements are known strings. The output is byte for byte what SignedXml wrote
  // (test/unit/dian-soap-signature.test.ts), and the simulator still verifies it with xml-crypto.
  const references: { id: string; canonical: string }[] = [];
  if (options.signTimestamp ?? true) {
    references.push({
      id: ids.timestamp,
      canonical:
        `<wsu:Timestamp xmlns:wsu="${NS.wsu}" wsu:Id="${c14nAttribute(ids.timestamp)}"><wsu:Created>${isoSeconds(created)}</wsu:Created>` +
        `<wsu:Expires>${isoSeconds(expires)}</wsu:Expires></wsu:Timestamp>`,
    });
  }
  references.push({
    id: ids.to,
    canonical: `<wsa:To xmlns:wsa="${NS.wsa}" xmlns:wsu="${NS.wsu}" wsu:Id="${c14nAttribute(ids.to)}">${c14nText(to)}</wsa:To>`,
  });
  const signedInfo = (empty: (element: string) => string) =>
    `<ds:SignedInfo>${empty(`ds:CanonicalizationMethod Algorithm="${ALGORITHMS.excC14n}"`)}${empty(`ds:SignatureMethod Algorithm="${ALGORITHMS.rsaSha256}"`)}` +
    references
      .map(
        (reference) =>
          `<ds:Reference URI="#${reference.id}"><ds:Transforms>${empty(`ds:Transform Algorithm="${ALGORITHMS.excC14n}"`)}</ds:Transforms>` +
          `${empty(`ds:DigestMethod Algorithm="${ALGORITHMS.sha256}"`)}<ds:DigestValue>${createHash('sha256').update(reference.canonical).digest('base64')}</ds:DigestValue></ds:Reference>`,
      )
      .join('') +
    `</ds:SignedInfo>`;
  // Exclusive c14n of SignedInfo: the ds namespace declared on it, empty elements as start and end tags.
  const canonicalSignedInfo = signedInfo((element) => `<${element}></${element.slice(0, element.indexOf(' '))}>`).replace(
    '<ds:SignedInfo>',
    `<ds:SignedInfo xmlns:ds="${NS.ds}">`,
  );
  // A parsed KeyObject: immune to a stale OpenSSL error left by a failed TLS connect (signing-key.ts).
  const signatureValue = sign('sha256', Buffer.from(canonicalSignedInfo), signingKey(credentials.privateKeyPem)).toString('base64');
  const signature =
    `<ds:Signature xmlns:ds="${NS.ds}">${signedInfo((element) => `<${element}/>`)}<ds:SignatureValue>${signatureValue}</ds:SignatureValue>` +
    `<ds:KeyInfo><wsse:SecurityTokenReference><wsse:Reference URI="#${ids.token}" ValueType="${ALGORITHMS.x509v3}"/></wsse:SecurityTokenReference></ds:KeyInfo></ds:Signature>`;
  const securityEnd = unsigned.indexOf('</wsse:Security>');
  return {
    action,
    envelope: unsigned.slice(0, securityEnd) + signature + unsigned.slice(securityEnd),
    contentType: `application/soap+xml; charset=utf-8; action="${action}"`,
  };
}

/** Text as exclusive XML canonicalization writes it. */
function c14nText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/\r/g, '&#xD;');
}

/** An attribute value as exclusive XML canonicalization writes it. */
function c14nAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;').replace(/\t/g, '&#x9;').replace(/\n/g, '&#xA;').replace(/\r/g, '&#xD;');
}

function isoSeconds(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export type SoapSecurityVerdict = { valid: boolean; reason?: string; certificatePem?: string };

type XmlElement = {
  localName: string;
  namespaceURI: string | null;
  textContent: string | null;
  parentNode: unknown;
  childNodes: { length: number; item(i: number): unknown };
  getAttributeNS(ns: string, name: string): string | null;
  getAttribute(name: string): string | null;
};

function children(node: XmlElement, ns: string, localName: string): XmlElement[] {
  const found: XmlElement[] = [];
  for (let i = 0; i < node.childNodes.length; i++) {
    const child = node.childNodes.item(i) as XmlElement & { nodeType: number };
    if (child.nodeType === 1 && child.localName === localName && child.namespaceURI === ns) found.push(child);
  }
  return found;
}

function only(node: XmlElement | undefined, ns: string, localName: string): XmlElement | undefined {
  if (!node) return undefined;
  const found = children(node, ns, localName);
  return found.length === 1 ? found[0] : undefined;
}

export function parseXmlDocument(xml: string): XmlElement {
  const fail = (message: string) => {
    throw new Error(message);
  };
  const doc = new DOMParser({ errorHandler: { error: fail, fatalError: fail } }).parseFromString(xml, 'text/xml');
  if (!doc?.documentElement) throw new Error('empty document');
  return doc.documentElement as unknown as XmlElement;
}

/**
 * Checks an incoming request's WS-Security: a ds:Signature in wsse:Security whose references
 * cover the wsu:Timestamp and wsa:To, correct digests, a signature value that verifies with the
 * certificate of the BinarySecurityToken its KeyInfo points to, and a Timestamp not expired.
 */
export function verifySoapSecurity(envelope: string, options: { now?: Date; clockSkewSeconds?: number } = {}): SoapSecurityVerdict {
  const invalid = (reason: string): SoapSecurityVerdict => ({ valid: false, reason });
  let root: XmlElement;
  try {
    root = parseXmlDocument(envelope);
  } catch (error) {
    return invalid(`malformed XML: ${(error as Error).message}`);
  }
  if (root.localName !== 'Envelope' || root.namespaceURI !== NS.soap) return invalid('not a SOAP 1.2 envelope');
  const header = only(root, NS.soap, 'Header');
  const security = only(header, NS.wsse, 'Security');
  if (!security) return invalid('missing wsse:Security header');
  const timestamp = only(security, NS.wsu, 'Timestamp');
  const token = only(security, NS.wsse, 'BinarySecurityToken');
  const signature = only(security, NS.ds, 'Signature');
  const to = only(header, NS.wsa, 'To');
  if (!timestamp) return invalid('missing wsu:Timestamp');
  if (!token) return invalid('missing wsse:BinarySecurityToken');
  if (!signature) return invalid('missing ds:Signature');
  if (!to) return invalid('missing wsa:To');

  const idOf = (el: XmlElement) => el.getAttributeNS(NS.wsu, 'Id') ?? '';
  const signedInfo = only(signature, NS.ds, 'SignedInfo');
  if (!signedInfo) return invalid('missing ds:SignedInfo');
  const method = only(signedInfo, NS.ds, 'SignatureMethod')?.getAttribute('Algorithm');
  if (method !== ALGORITHMS.rsaSha256) return invalid(`unexpected signature method ${method ?? '(none)'}`);
  const c14n = only(signedInfo, NS.ds, 'CanonicalizationMethod')?.getAttribute('Algorithm');
  if (c14n !== ALGORITHMS.excC14n) return invalid(`unexpected canonicalization ${c14n ?? '(none)'}`);
  const uris = children(signedInfo, NS.ds, 'Reference').map((ref) => ref.getAttribute('URI') ?? '');
  if (!idOf(timestamp) || !uris.includes(`#${idOf(timestamp)}`)) return invalid('signature does not cover wsu:Timestamp');
  if (!idOf(to) || !uris.includes(`#${idOf(to)}`)) return invalid('signature does not cover wsa:To');

  const tokenRef = only(only(only(signature, NS.ds, 'KeyInfo'), NS.wsse, 'SecurityTokenReference'), NS.wsse, 'Reference');
  if (!tokenRef || tokenRef.getAttribute('URI') !== `#${idOf(token)}`) {
    return invalid('KeyInfo does not reference the BinarySecurityToken');
  }
  if (token.getAttribute('ValueType') !== ALGORITHMS.x509v3) return invalid('BinarySecurityToken is not an X.509v3 token');
  let certificatePem: string;
  try {
    certificatePem = base64DerToPem(token.textContent ?? '');
    new X509Certificate(certificatePem);
  } catch {
    return invalid('BinarySecurityToken does not hold a valid X.509 certificate');
  }

  const failure = checkSignature(root, signature, signedInfo, certificatePem);
  if (failure) return invalid(failure);

  const now = (options.now ?? new Date()).getTime();
  const skew = (options.clockSkewSeconds ?? 300) * 1000;
  const created = Date.parse(only(timestamp, NS.wsu, 'Created')?.textContent ?? '');
  const expires = Date.parse(only(timestamp, NS.wsu, 'Expires')?.textContent ?? '');
  if (Number.isNaN(created) || Number.isNaN(expires)) return invalid('wsu:Timestamp without Created/Expires');
  if (expires <= now) return invalid('wsu:Timestamp expired');
  if (created > now + skew) return invalid('wsu:Timestamp created in the future');
  return { valid: true, certificatePem };
}

/** The elements of a document by wsu:Id (or an unqualified Id), each id listed with every element that carries it. */
function elementsById(root: XmlElement): Map<string, XmlElement[]> {
  const found = new Map<string, XmlElement[]>();
  const visit = (node: XmlElement) => {
    const id = node.getAttributeNS(NS.wsu, 'Id') || node.getAttribute('Id');
    if (id) found.set(id, [...(found.get(id) ?? []), node]);
    for (let i = 0; i < node.childNodes.length; i++) {
      const child = node.childNodes.item(i) as XmlElement & { nodeType: number };
      if (child.nodeType === 1) visit(child);
    }
  };
  visit(root);
  return found;
}

/**
 * XML-DSig verification of the WS-Security signature on the DOM already parsed: every reference
 * (exclusive c14n, SHA-256 only, one element per id) digests as stated, and SignedInfo's RSA-SHA256
 * value verifies with the token's certificate. Returns why not, or undefined. Done here rather
 * than by SignedXml.checkSignature, which parsed the envelope again and found each reference with
 * XPath (≈ 10 ms a request: the simulator's main cost in an import run).
 */
function checkSignature(root: XmlElement, signature: XmlElement, signedInfo: XmlElement, certificatePem: string): string | undefined {
  const canonical = (element: XmlElement) => new ExclusiveCanonicalization().process(element as unknown as Element, {});
  const ids = elementsById(root);
  for (const reference of children(signedInfo, NS.ds, 'Reference')) {
    const uri = reference.getAttribute('URI') ?? '';
    const targets = uri.startsWith('#') ? (ids.get(uri.slice(1)) ?? []) : [];
    if (targets.length !== 1) return `signature does not verify: reference ${uri} must name exactly one element`;
    const transforms = children(only(reference, NS.ds, 'Transforms') ?? reference, NS.ds, 'Transform').map((transform) => transform.getAttribute('Algorithm'));
    if (transforms.length !== 1 || transforms[0] !== ALGORITHMS.excC14n) return `signature does not verify: unsupported transforms for ${uri}`;
    if (only(reference, NS.ds, 'DigestMethod')?.getAttribute('Algorithm') !== ALGORITHMS.sha256) return `signature does not verify: unsupported digest for ${uri}`;
    const digest = createHash('sha256').update(canonical(targets[0]!)).digest('base64');
    if (digest !== (only(reference, NS.ds, 'DigestValue')?.textContent ?? '').trim()) return `digest mismatch for ${uri}`;
  }
  const value = Buffer.from((only(signature, NS.ds, 'SignatureValue')?.textContent ?? '').replace(/\s+/g, ''), 'base64');
  try {
    if (!verify('sha256', Buffer.from(canonical(signedInfo)), certificatePem, value)) return 'signature value does not verify';
  } catch (error) {
    return `signature does not verify: ${(error as Error).message}`;
  }
  return undefined;
}

const parser = new XMLParser({
  removeNSPrefix: true,
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (name) => name === 'string' || name === 'Document',
});

export type ParsedSoap =
  | { kind: 'fault'; code: string; subcode: string | null; reason: string }
  | { kind: 'body'; element: string; content: Record<string, unknown>; header: Record<string, unknown> };

/** Parses a SOAP 1.2 envelope (namespace prefixes removed) into its fault or first body element. */
export function parseSoapEnvelope(xml: string): ParsedSoap {
  const document = parser.parse(xml) as Record<string, unknown>;
  const envelope = document['Envelope'];
  if (!isRecord(envelope)) throw new Error('not a SOAP envelope');
  const body = envelope['Body'];
  if (!isRecord(body)) throw new Error('SOAP envelope without Body');
  const header = isRecord(envelope['Header']) ? envelope['Header'] : {};
  const fault = body['Fault'];
  if (isRecord(fault)) {
    const code = isRecord(fault['Code']) ? fault['Code'] : {};
    const subcode = isRecord(code['Subcode']) ? text(code['Subcode']['Value']) : null;
    const reason = isRecord(fault['Reason']) ? text(fault['Reason']['Text']) : text(fault['faultstring']);
    return { kind: 'fault', code: text(code['Value']) || text(fault['faultcode']), subcode, reason };
  }
  const element = Object.keys(body)[0];
  if (!element) throw new Error('empty SOAP Body');
  const content = body[element];
  return { kind: 'body', element, content: isRecord(content) ? content : {}, header };
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (isRecord(value) && typeof value['#text'] === 'string') return value['#text'];
  return '';
}
