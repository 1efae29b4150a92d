import type { DianEnvironment } from '../dian/catalogue';
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
  /**
   * cbc:AdditionalAccountID of the AccountingSupplierParty/AccountingCustomerParty: DIAN's
   * organisation type, '1' persona jurídica → LEGAL, '2' persona natural → NATURAL; null when
   * absent or another value. Absent from documents stored before it was read.
   */
  personType?: 'LEGAL' | 'NATURAL' | null;
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
  /** A tax per unit (no rate): cbc:PerUnitAmount, and the units it applies to (cbc:BaseUnitMeasure). Absent otherwise. */
  perUnitAmount?: string;
  units?: string | null;
};

export type UblLine = {
  id: string;
  description: string;
  quantity: string;
  unitCode: string | null;
  unitPrice: string;
  lineExtensionAmount: string;
  taxes: UblTax[];
  /**
   * The line's own cac:AllowanceCharge (a discount or a charge already in lineExtensionAmount,
   * which is why quantity × price can differ from it). Absent from lines stored before it was read.
   */
  allowanceCharges?: UblAllowanceCharge[];
  /**
   * A free item (cbc:FreeOfChargeIndicator true: a muestra gratis, a gift): its total is 0, but its
   * taxes are computed on referencePrice. Absent from lines stored before it was read.
   */
  freeOfCharge?: boolean;
  /**
   * cac:PricingReference/cac:AlternativeConditionPrice: the value DIAN requires for a free item
   * (PriceTypeCode 01 valor comercial, 02 valor en inventarios, 03 otro valor); null without one.
   */
  referencePrice?: { amount: string; typeCode: string | null; type: string | null } | null;
};

export type UblReference = { number: string; cufe: string | null; issueDate: string | null };

/** DIAN's name for what a document is (Anexo Técnico 1.9, table 13.1.3 "Tipo de documento"). */
export type DianDocumentType =
  | 'electronic_invoice' // 01 factura electrónica de venta
  | 'export_invoice' // 02 factura electrónica de venta - exportación
  | 'contingency_invoice' // 03 contingencia facturador, 04 contingencia DIAN
  | 'support_document' // 05 documento soporte en adquisiciones a no obligados a facturar (CUDS)
  | 'pos_equivalent' // 20 documento equivalente electrónico del tiquete de máquina registradora POS (CUDE)
  | 'equivalent_document' // other documentos equivalentes electrónicos (e.g. 35 POS pasajeros), CUDE
  | 'credit_note' // 91
  | 'debit_note' // 92
  | 'support_document_adjustment' // 95 nota de ajuste del documento soporte (CUDS)
  | 'equivalent_document_adjustment'; // 94 crédito / 93 débito: nota de ajuste al documento equivalente electrónico (CUDE)

/** The code scheme of cbc:UUID: CUFE (invoices), CUDE (notes, equivalent documents), CUDS (support documents). */
export type CodeScheme = 'CUFE' | 'CUDE' | 'CUDS';

/** One document-level cac:WithholdingTaxTotal/cac:TaxSubtotal (a withholding the buyer applies). */
export type UblWithholding = {
  /** 'rete_fuente' (TaxScheme 06, ReteRenta), 'rete_iva' (05), 'rete_ica' (07), 'other' for any other scheme. */
  type: 'rete_fuente' | 'rete_iva' | 'rete_ica' | 'other';
  schemeId: string;
  schemeName: string | null;
  percent: string | null;
  taxableAmount: string;
  taxAmount: string;
};

/** One document-level cac:AllowanceCharge: a discount (chargeIndicator false) or a charge (true). */
export type UblAllowanceCharge = {
  chargeIndicator: boolean;
  /** cbc:AllowanceChargeReasonCode (DIAN's discount codes 00–11), when present. */
  reasonCode: string | null;
  reason: string | null;
  /** cbc:MultiplierFactorNumeric: the percentage applied to baseAmount. */
  percent: string | null;
  amount: string;
  baseAmount: string | null;
};

/** One cac:PrepaidPayment (anticipo). */
export type UblPrepaidPayment = {
  id: string | null;
  paidAmount: string;
  receivedDate: string | null;
  paidDate: string | null;
  instruction: string | null;
};

/** cac:PaymentExchangeRate: CalculationRate units of targetCurrency per unit of sourceCurrency, as written. */
export type UblExchangeRate = {
  sourceCurrency: string;
  targetCurrency: string;
  rate: string;
  /** YYYY-MM-DD, or null. */
  date: string | null;
};

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
  /** DIAN's document type, from the type code (and the UUID's scheme when the code is absent). */
  dianDocumentType: DianDocumentType;
  /** CUFE / CUDE / CUDS, from the UUID's schemeName, else from the document type. */
  codeScheme: CodeScheme;
  /** Which DIAN environment validated it (cbc:ProfileExecutionID 1 production, 2 testing); null when absent. */
  dianEnvironment: DianEnvironment | null;
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
  /** Document-level WithholdingTaxTotal/TaxSubtotal entries (ReteFuente, ReteIVA, ReteICA). */
  withholdings: UblWithholding[];
  /** Document-level AllowanceCharge elements (line-level ones are already in the line amounts). */
  allowanceCharges: UblAllowanceCharge[];
  /** AllowanceTotalAmount / ChargeTotalAmount of the monetary total, when present. */
  allowanceTotalAmount: string | null;
  chargeTotalAmount: string | null;
  /** PrepaidAmount of the monetary total, when present. */
  prepaidAmount: string | null;
  /** Sum of the document-level TaxTotal/RoundingAmount (each tributo's own rounding), when any is written. */
  taxRoundingAmount: string | null;
  /** PayableRoundingAmount of the monetary total (the rounding added to reach PayableAmount), when present. */
  payableRoundingAmount: string | null;
  prepaidPayments: UblPrepaidPayment[];
  exchangeRate: UblExchangeRate | null;
  lines: UblLine[];
  /**
   * The documents a note corrects, in reading order: one per cac:BillingReference (invoice, credit
   * or debit note reference), else the DiscrepancyResponse's ReferenceID; empty without any.
   */
  referencedDocuments: UblReference[];
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
