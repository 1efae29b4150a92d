/**
 * Hashes DIAN defines for electronic events (Anexo técnico de la Factura Electrónica de Venta
 * v1.9, section 11.5 "CUDE" for the ApplicationResponse, and the SoftwareSecurityCode rule of
 * the DianExtensions). Pure: no I/O.
 */
import { createHash } from 'node:crypto';

/** Buyer events this service issues (RADIAN, see eventDescription in application-response.ts). */
export type BuyerEventCode = '030' | '032' | '033';

export type EventCudeInput = {
  /** cbc:ID of the ApplicationResponse (the event number). */
  id: string;
  /** cbc:IssueDate exactly as written, YYYY-MM-DD. */
  issueDate: string;
  /** cbc:IssueTime exactly as written, e.g. '10:15:00-05:00'. */
  issueTime: string;
  /** NIT of the party issuing the event (SenderParty CompanyID), without check digit. */
  senderNit: string;
  /** Identification of the party receiving it (ReceiverParty CompanyID), without check digit. */
  receiverNit: string;
  responseCode: BuyerEventCode;
  /** cac:DocumentReference/cbc:ID: the number of the invoice the event refers to. */
  referencedDocumentId: string;
  /** cac:DocumentReference/cbc:DocumentTypeCode, '01' for a sales invoice. */
  documentTypeCode: string;
  /** The software PIN registered with DIAN (never the technical key). */
  softwarePin: string;
};

/** Lowercase hexadecimal SHA-384 of a UTF-8 string. */
export function sha384Hex(value: string): string {
  return createHash('sha384').update(value, 'utf8').digest('hex');
}

/** The string hashed for the CUDE of an event, in DIAN's order (exported for diagnostics). */
export function eventCudeString(input: EventCudeInput): string {
  return (
    input.id +
    input.issueDate +
    input.issueTime +
    input.senderNit +
    input.receiverNit +
    input.responseCode +
    input.referencedDocumentId +
    input.documentTypeCode +
    input.softwarePin
  );
}

/**
 * CUDE of an ApplicationResponse event: SHA-384 (lowercase hex) of
 * Num_DE + Fec_Emi + Hor_Emi + NitFE + DocAdq + ResponseCode + ID + DocumentTypeCode + Software-PIN.
 */
export function eventCude(input: EventCudeInput): string {
  return sha384Hex(eventCudeString(input));
}

/**
 * sts:SoftwareSecurityCode: SHA-384 (lowercase hex) of SoftwareID + software PIN + the number
 * (cbc:ID) of the document it is written into.
 */
export function softwareSecurityCode(softwareId: string, pin: string, documentNumber: string): string {
  return sha384Hex(softwareId + pin + documentNumber);
}
