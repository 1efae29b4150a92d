/**
 * DIAN's answer to a validated document: the ApplicationResponse it returns (ResponseCode 02
 * "Documento validado por la DIAN", 04 "Documento rechazado por la DIAN"), found inside an
 * AttachedDocument's ParentDocumentLineReference or saved beside the document in a ZIP. Pure.
 */
import { canonicalUniqueCode } from './document';
import { parseIsoDate } from './dates';
import type { UblValidation } from './types';
import { decodeXmlInput, assertSafeXml } from './xml-safety';
import { parseXmlTree, text, type XmlElement } from './xml-tree';

/** DIAN's ResponseCodes: "Documento validado por la DIAN" and "Documento rechazado por la DIAN". */
export const DIAN_VALIDATED = '02';
export const DIAN_REJECTED = '04';

/** A validation and the CUFE/CUDE/CUDS of the document it answers (null when it does not say). */
export type DianResponse = { validation: UblValidation; documentKey: string | null };

/** An ApplicationResponse element → what DIAN said and about which document. */
export function readDianResponse(response: XmlElement, fallbackDate: string | null = null): DianResponse {
  const key = text(response, 'DocumentResponse/DocumentReference/UUID');
  return {
    validation: {
      responseCode: text(response, 'DocumentResponse/Response/ResponseCode'),
      description: text(response, 'DocumentResponse/Response/Description'),
      validationDate: parseIsoDate(text(response, 'IssueDate')) ?? fallbackDate,
    },
    documentKey: key === null ? null : canonicalUniqueCode(key),
  };
}

/**
 * A standalone XML that is an ApplicationResponse (DIAN's validation saved beside the invoice,
 * or an event): what it says. Null for anything else, or text that cannot be read.
 */
export function parseDianResponse(xml: Buffer | string): DianResponse | null {
  try {
    const text = decodeXmlInput(xml);
    const root = parseXmlTree(text, assertSafeXml(text));
    return root.name === 'ApplicationResponse' ? readDianResponse(root) : null;
  } catch {
    return null;
  }
}

/**
 * True when the response answers the document of this key; one that names no document answers
 * it only where its place says whose it is (`unnamed`: inside the document's own container).
 */
export function answersDocument(response: DianResponse, documentKey: string, unnamed: boolean): boolean {
  return response.documentKey === null ? unnamed : response.documentKey === canonicalUniqueCode(documentKey);
}

/** DIAN's verdict in a validation: validated, rejected, or another code (an event's, a provider's). */
export function dianVerdict(validation: UblValidation | null): 'validated' | 'rejected' | null {
  const code = validation?.responseCode?.trim();
  return code === DIAN_VALIDATED ? 'validated' : code === DIAN_REJECTED ? 'rejected' : null;
}
