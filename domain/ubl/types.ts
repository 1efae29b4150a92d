/**
 * What the UBL 2.1 parser extracts from a DIAN electronic document. Amounts are the literal
 * decimal text of the XML (never floats); the API formats them with 2 decimals.
 */
export type UblDocumentType = 'Invoice' | 'CreditNote' | 'DebitNote';

export type UblParty = {
  /** NIT or other identification number, digits only for NITs, without the check digit. */
  idNumber: string;
  /** Check digit from the schemeID attribute of the NIT, when present. */
  dv: string | null;
  /** DIAN identification type code (schemeName), e.g. '31' for NIT; null when absent. */
  idType: string | null;
  name: string;
  email: string | null;
  phone: string | null;
  address: string | null;
  city: string | null;
  countryCode: string | null;
};

export type UblTax = {
  /** cac:TaxScheme/cbc:ID, e.g. '01' IVA, '04' INC, '03' ICA. */
  schemeId: string;
  schemeName: string | null;
  percent: string | null;
  taxableAmount: string;
  taxAmount: string;
};

export type UblLine = {
  id: string;
  description: string;
  quantity: string;
  unitCode: string | null;
  unitPrice: string;
  lineExtensionAmount: string;
  taxes: UblTax[];
};

export type UblReference = { number: string; cufe: string | null; issueDate: string | null };

export type UblDocument = {
  documentType: UblDocumentType;
  /** cbc:ID */
  number: string;
  /** cbc:UUID: CUFE for invoices, CUDE for notes. */
  cufe: string;
  /** schemeName of cbc:UUID, e.g. 'CUFE-SHA384'; null when absent. */
  cufeAlgorithm: string | null;
  /** cbc:InvoiceTypeCode / CreditNoteTypeCode / DebitNoteTypeCode, when present. */
  typeCode: string | null;
  /** YYYY-MM-DD as written. */
  issueDate: string;
  /** HH:MM:SS with its offset as written (e.g. '09:15:23-05:00'); null when absent. */
  issueTime: string | null;
  /** issueDate + issueTime as an ISO 8601 UTC instant (offset honoured; Colombia -05:00 when absent). */
  issuedAt: string;
  /** YYYY-MM-DD, or null. */
  dueDate: string | null;
  currency: string;
  supplier: UblParty;
  customer: UblParty;
  /** LegalMonetaryTotal (RequestedMonetaryTotal for debit notes) / LineExtensionAmount. */
  subTotal: string;
  /** Sum of document-level TaxTotal/TaxSubtotal/TaxAmount whose TaxScheme ID is '01'; null when there is none. */
  vat: string | null;
  taxExclusiveAmount: string | null;
  taxInclusiveAmount: string | null;
  /** PayableAmount. */
  total: string;
  /** Document-level tax subtotals (all schemes). */
  taxes: UblTax[];
  lines: UblLine[];
  /** BillingReference/InvoiceDocumentReference (notes) or DiscrepancyResponse reference. */
  referencedDocument: UblReference | null;
  notes: string[];
};

/** DIAN's validation answer embedded in an AttachedDocument (ApplicationResponse). */
export type UblValidation = {
  responseCode: string | null;
  description: string | null;
  validationDate: string | null;
};

export type ParsedUbl = {
  /** 'AttachedDocument' when the document came wrapped; null for a bare document. */
  container: 'AttachedDocument' | null;
  document: UblDocument;
  validation: UblValidation | null;
};

/** Every parse failure carries a stable machine-readable code for the uploaded-file record. */
export class UblParseError extends Error {
  constructor(
    readonly code:
      | 'malformed_xml'
      | 'forbidden_dtd'
      | 'xml_too_large'
      | 'unsupported_document'
      | 'missing_field'
      | 'invalid_field',
    message: string,
  ) {
    super(message);
    this.name = 'UblParseError';
  }
}
