/**
 * Entry point of the DIAN UBL 2.1 parser: a bare Invoice / CreditNote / DebitNote, or an
 * AttachedDocument wrapping one (plus DIAN's ApplicationResponse validation, when present).
 * Pure: no I/O. Every failure is a UblParseError with a stable code.
 */
import { DOCUMENT_TYPES, readDocument } from './document';
import { UblParseError, type ParsedUbl, type UblDocumentType, type UblValidation } from './types';
import { assertSafeXml, decodeXmlInput } from './xml-safety';
import { parseIsoDate } from './dates';
import { answersDocument, readDianResponse } from './dian-response';
import { all, parseXmlTree, text, type XmlElement } from './xml-tree';

export { UblParseError } from './types';
export type { ParsedUbl } from './types';

const CONTAINER = 'AttachedDocument';
const EMBEDDED_PATH = 'Attachment/ExternalReference/Description';

function isDocumentType(name: string): name is UblDocumentType {
  return (DOCUMENT_TYPES as readonly string[]).includes(name);
}

/** Safety checks on the raw text, then the element tree. */
function loadRoot(xml: string): XmlElement {
  return parseXmlTree(xml, assertSafeXml(xml));
}

/**
 * The XML text embedded in a cbc:Description: CDATA or entity-escaped text (both arrive
 * decoded here), or, leniently, base64 of an XML document. Null when it is not XML.
 */
function embeddedXml(description: XmlElement): string | null {
  const value = description.text.replace(/^\uFEFF/, '').trim();
  if (value.startsWith('<')) return value;
  if (value.length >= 8 && /^[A-Za-z0-9+/=\s]+$/.test(value)) {
    const decoded = decodeXmlInput(Buffer.from(value, 'base64')).replace(/^\uFEFF/, '').trim();
    if (decoded.startsWith('<')) return decoded;
  }
  return null;
}

function unsupported(name: string, context = ''): UblParseError {
  // DIAN's own answer (its validation of a document, or a buyer's event 030–034) is the file most
  // often uploaded by mistake for the invoice it is about: say so, not only which root it has.
  const what =
    name === 'ApplicationResponse'
      ? ' (a DIAN ApplicationResponse: DIAN\'s validation of a document or a RADIAN event, not a document to import; upload the invoice itself, or its AttachedDocument or ZIP)'
      : '';
  return new UblParseError(
    'unsupported_document',
    `unsupported document${context}: root element <${name}>${what}; expected Invoice, CreditNote, DebitNote or AttachedDocument`,
  );
}

/**
 * DIAN's validation of the wrapped document, from ParentDocumentLineReference: the embedded
 * ApplicationResponse that answers this document (one answering another CUFE is not its
 * validation), else the reference's own cac:ResultOfVerification/cbc:ValidationResultCode, which
 * says the same (02 validated, 04 rejected) and is all some providers keep when the embedded
 * response is missing or unreadable. Null when there is neither.
 */
function readValidation(container: XmlElement, documentKey: string): UblValidation | null {
  let verified: UblValidation | null = null;
  for (const reference of all(container, 'ParentDocumentLineReference/DocumentReference')) {
    const referenceDate = parseIsoDate(text(reference, 'IssueDate')) ?? parseIsoDate(text(reference, 'ResultOfVerification/ValidationDate'));
    for (const description of all(reference, EMBEDDED_PATH)) {
      let response: XmlElement;
      try {
        const xml = embeddedXml(description);
        if (!xml) continue;
        response = loadRoot(xml);
      } catch (error) {
        // A hostile embedded document fails the whole upload; any other defect only loses the validation.
        if (error instanceof UblParseError && error.code === 'forbidden_dtd') throw error;
        continue;
      }
      if (response.name !== 'ApplicationResponse') continue;
      const answer = readDianResponse(response, referenceDate);
      if (answersDocument(answer, documentKey, true)) return answer.validation;
    }
    const resultCode = text(reference, 'ResultOfVerification/ValidationResultCode');
    if (resultCode && !verified) verified = { responseCode: resultCode, description: null, validationDate: referenceDate };
  }
  return verified;
}

function parseContainer(container: XmlElement): ParsedUbl {
  let inner: XmlElement | null = null;
  for (const description of all(container, EMBEDDED_PATH)) {
    const xml = embeddedXml(description);
    if (xml) {
      inner = loadRoot(xml);
      break;
    }
  }
  if (!inner) {
    throw new UblParseError(
      'missing_field',
      'the AttachedDocument has no embedded document (cac:Attachment/cac:ExternalReference/cbc:Description)',
    );
  }
  if (!isDocumentType(inner.name)) throw unsupported(inner.name, ' inside the AttachedDocument');
  const document = readDocument(inner, inner.name);
  return { container: CONTAINER, document, validation: readValidation(container, document.cufe) };
}

/**
 * Parses a DIAN UBL 2.1 document: Invoice, CreditNote, DebitNote, or an AttachedDocument
 * wrapping one of them. Throws UblParseError ('malformed_xml', 'forbidden_dtd',
 * 'xml_too_large', 'unsupported_document', 'missing_field', 'invalid_field').
 */
export function parseUbl(xml: string | Buffer): ParsedUbl {
  const root = loadRoot(decodeXmlInput(xml));
  if (root.name === CONTAINER) return parseContainer(root);
  if (isDocumentType(root.name)) return { container: null, document: readDocument(root, root.name), validation: null };
  throw unsupported(root.name);
}

/** Root elements parseUbl accepts. */
export const SUPPORTED_ROOTS: readonly string[] = [...DOCUMENT_TYPES, CONTAINER];
