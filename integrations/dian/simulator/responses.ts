/**
 * SOAP answers shaped like DIAN's WCF service: DataContract-serialized `DianResponse`
 * (namespace …/2004/07/DianResponse, members in alphabetical order) and `EventResponse`,
 * SOAP 1.2 faults with WCF's standard codes and texts.
 */
import { NS, soapAction, xmlEscape, type SoapOperation } from '../soap';

const DIAN_RESPONSE_NS = 'http://schemas.datacontract.org/2004/07/DianResponse';
const EVENT_RESPONSE_NS = 'http://schemas.datacontract.org/2004/07/EventResponse';
const DOC_IDENTIFIER_NS = 'http://schemas.datacontract.org/2004/07/DocIdentifierWithEventsResponse';
const ARRAYS_NS = 'http://schemas.microsoft.com/2003/10/Serialization/Arrays';
const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

export type DianResponseFields = {
  isValid: boolean;
  statusCode: string;
  statusDescription: string;
  statusMessage?: string;
  errors?: string[];
  xmlBase64Bytes?: string | null;
  xmlDocumentKey?: string | null;
  xmlFileName?: string | null;
};

function envelope(operation: SoapOperation, inner: string): string {
  const bodyNs = operation === 'ListReceivedDocuments' ? NS.ext : NS.wcf;
  return (
    `<s:Envelope xmlns:s="${NS.soap}" xmlns:a="${NS.wsa}">` +
    `<s:Header><a:Action s:mustUnderstand="1">${soapAction(operation)}Response</a:Action></s:Header>` +
    `<s:Body><${operation}Response xmlns="${bodyNs}">${inner}</${operation}Response></s:Body></s:Envelope>`
  );
}

const field = (name: string, value: string | null | undefined) =>
  value === null || value === undefined ? `<b:${name} i:nil="true"/>` : `<b:${name}>${xmlEscape(value)}</b:${name}>`;

const errorMessage = (errors: string[] | undefined) =>
  `<b:ErrorMessage xmlns:c="${ARRAYS_NS}">${(errors ?? []).map((error) => `<c:string>${xmlEscape(error)}</c:string>`).join('')}</b:ErrorMessage>`;

/** The members DianResponse and DianResponseBulkDocumentDownload share, in their alphabetical order. */
const statusFields = (fields: DianResponseFields) =>
  errorMessage(fields.errors) +
  field('IsValid', String(fields.isValid)) +
  field('StatusCode', fields.statusCode) +
  field('StatusDescription', fields.statusDescription) +
  field('StatusMessage', fields.statusMessage ?? '');

export function dianResponseEnvelope(operation: SoapOperation, fields: DianResponseFields): string {
  const inner =
    `<${operation}Result xmlns:b="${DIAN_RESPONSE_NS}" xmlns:i="${XSI_NS}">` +
    statusFields(fields) +
    field('XmlBase64Bytes', fields.xmlBase64Bytes) +
    field('XmlBytes', null) +
    field('XmlDocumentKey', fields.xmlDocumentKey) +
    field('XmlFileName', fields.xmlFileName) +
    `</${operation}Result>`;
  return envelope(operation, inner);
}

/** GetStatusBulkDocumentDownload's DianResponseBulkDocumentDownload (same namespace as DianResponse, plus UrlDescarga). */
export function bulkDownloadStatusEnvelope(fields: DianResponseFields & { urlDescarga?: string }): string {
  const inner =
    `<GetStatusBulkDocumentDownloadResult xmlns:b="${DIAN_RESPONSE_NS}" xmlns:i="${XSI_NS}">` +
    statusFields(fields) +
    field('UrlDescarga', fields.urlDescarga ?? null) +
    `</GetStatusBulkDocumentDownloadResult>`;
  return envelope('GetStatusBulkDocumentDownload', inner);
}

/** GetDocIdentifierWithEvents's DocIdentifierWithEventsResponse (CsvBase64Bytes is a byte[]: base64 on the wire). */
export function docIdentifierWithEventsEnvelope(fields: { statusCode: string; success: boolean; message: string; csv: string | null }): string {
  const inner =
    `<GetDocIdentifierWithEventsResult xmlns:b="${DOC_IDENTIFIER_NS}" xmlns:i="${XSI_NS}">` +
    field('CsvBase64Bytes', fields.csv === null ? null : Buffer.from(fields.csv, 'utf8').toString('base64')) +
    field('Message', fields.message) +
    field('StatusCode', fields.statusCode) +
    field('Success', String(fields.success)) +
    `</GetDocIdentifierWithEventsResult>`;
  return envelope('GetDocIdentifierWithEvents', inner);
}

export function eventResponseEnvelope(fields: { code: string; message: string; xmlBytesBase64?: string | null }): string {
  const inner =
    `<GetXmlByDocumentKeyResult xmlns:b="${EVENT_RESPONSE_NS}" xmlns:i="${XSI_NS}">` +
    field('Code', fields.code) +
    field('Message', fields.message) +
    field('ValidationDate', null) +
    field('XmlBytesBase64', fields.xmlBytesBase64) +
    `</GetXmlByDocumentKeyResult>`;
  return envelope('GetXmlByDocumentKey', inner);
}

export function listReceivedDocumentsEnvelope(documents: { cufe: string; documentType: string; issueDate: string }[]): string {
  const items = documents
    .map(
      (document) =>
        `<Document><Cufe>${xmlEscape(document.cufe)}</Cufe><DocumentType>${xmlEscape(document.documentType)}</DocumentType>` +
        `<IssueDate>${xmlEscape(document.issueDate)}</IssueDate></Document>`,
    )
    .join('');
  return envelope('ListReceivedDocuments', `<ListReceivedDocumentsResult>${items}</ListReceivedDocumentsResult>`);
}

export type SoapFault = { code: 'Sender' | 'Receiver'; subcode: string; reason: string };

/** WCF's standard fault texts, as DIAN's WCF service returns them. */
export const FAULTS = {
  invalidSecurity: {
    code: 'Sender',
    subcode: 'a:InvalidSecurity',
    reason: 'An error occurred when verifying security for the message.',
  },
  actionNotSupported: (action: string): SoapFault => ({
    code: 'Sender',
    subcode: 'a:ActionNotSupported',
    reason:
      `The message with Action '${action}' cannot be processed at the receiver, due to a ContractFilter mismatch at the ` +
      'EndpointDispatcher. This may be because of either a contract mismatch (mismatched Actions between sender and receiver) ' +
      'or a binding/security mismatch between the sender and the receiver.',
  }),
  destinationUnreachable: (to: string): SoapFault => ({
    code: 'Sender',
    subcode: 'a:DestinationUnreachable',
    reason:
      `The message with To '${to}' cannot be processed at the receiver, due to an AddressFilter mismatch at the ` +
      'EndpointDispatcher.  Check that the sender and receiver\'s EndpointAddresses agree.',
  }),
  badEnvelope: (detail: string): SoapFault => ({ code: 'Sender', subcode: 'a:BadEnvelope', reason: detail }),
  internal: {
    code: 'Receiver',
    subcode: 'a:InternalServiceFault',
    reason: 'The server was unable to process the request due to an internal error.',
  },
} satisfies Record<string, SoapFault | ((value: string) => SoapFault)>;

export function faultEnvelope(fault: SoapFault): string {
  const subcodeNs = fault.subcode === 'a:InvalidSecurity' ? NS.wsse : 'http://schemas.microsoft.com/net/2005/12/windowscommunicationfoundation/dispatcher';
  return (
    `<s:Envelope xmlns:s="${NS.soap}" xmlns:a="${NS.wsa}">` +
    `<s:Header><a:Action s:mustUnderstand="1">http://www.w3.org/2005/08/addressing/soap/fault</a:Action></s:Header>` +
    `<s:Body><s:Fault><s:Code><s:Value>s:${fault.code}</s:Value>` +
    `<s:Subcode><s:Value xmlns:a="${subcodeNs}">${fault.subcode}</s:Value></s:Subcode></s:Code>` +
    `<s:Reason><s:Text xml:lang="en-US">${xmlEscape(fault.reason)}</s:Text></s:Reason></s:Fault></s:Body></s:Envelope>`
  );
}

const UBL = {
  ar: 'urn:oasis:names:specification:ubl:schema:xsd:ApplicationResponse-2',
  cac: 'urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2',
  cbc: 'urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2',
};

/**
 * GetStatusEvent's XmlBase64Bytes: an ApplicationResponse with one cac:DocumentResponse per
 * event (Response/ResponseCode, Description, EffectiveDate, EffectiveTime) and the
 * DocumentReference to the event's CUDE — the layout of DIAN's published service code.
 * Unsigned here (DIAN signs it).
 */
export function eventsApplicationResponse(
  cufe: string,
  events: { code: string; description: string; cude: string; date: string; time: string }[],
): string {
  const responses = events
    .map(
      (event, index) =>
        `<cac:DocumentResponse><cac:Response><cbc:ReferenceID>${index + 1}</cbc:ReferenceID>` +
        `<cbc:ResponseCode>${event.code}</cbc:ResponseCode><cbc:Description>${xmlEscape(event.description)}</cbc:Description>` +
        `<cbc:EffectiveDate>${event.date}</cbc:EffectiveDate><cbc:EffectiveTime>${event.time}-05:00</cbc:EffectiveTime></cac:Response>` +
        `<cac:DocumentReference><cbc:UUID schemeName="CUDE-SHA384">${xmlEscape(event.cude)}</cbc:UUID></cac:DocumentReference>` +
        `</cac:DocumentResponse>`,
    )
    .join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?><ApplicationResponse xmlns="${UBL.ar}" xmlns:cac="${UBL.cac}" xmlns:cbc="${UBL.cbc}">` +
    `<cbc:UBLVersionID>UBL 2.1</cbc:UBLVersionID><cbc:CustomizationID>1</cbc:CustomizationID><cbc:ProfileID>DIAN 2.1</cbc:ProfileID>` +
    `<cbc:ID>${xmlEscape(cufe.slice(0, 12))}</cbc:ID>${responses}</ApplicationResponse>`
  );
}
