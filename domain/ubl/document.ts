/**
 * Invoice / CreditNote / DebitNote element → UblDocument.
 */
import { sumDecimals } from './amounts';
import { readAllowanceCharges, readExchangeRate, readPrepaidPayments, readWithholdings } from './accounting';
import { classifyDocument } from './document-type';
import { amount, required, storable } from './fields';
import { readTaxes, readTaxRounding } from './taxes';
import { parseIsoDate, toUtcInstant } from './dates';
import { readParty } from './parties';
import {
  UblParseError,
  type UblDocument,
  type UblDocumentType,
  type UblLine,
  type UblParty,
  type UblReference,
} from './types';
import { all, attribute, child, children, first, text, type XmlElement } from './xml-tree';
import { dianEnvironmentOf } from '../dian/catalogue';

export const DOCUMENT_TYPES: readonly UblDocumentType[] = ['Invoice', 'CreditNote', 'DebitNote'];

const LINE_NAMES: Record<UblDocumentType, string> = { Invoice: 'InvoiceLine', CreditNote: 'CreditNoteLine', DebitNote: 'DebitNoteLine' };
const QUANTITY_NAMES = ['InvoicedQuantity', 'CreditedQuantity', 'DebitedQuantity'];
const TYPE_CODE_NAMES = ['InvoiceTypeCode', 'CreditNoteTypeCode', 'DebitNoteTypeCode'];
const VAT_SCHEME = '01';

function readLine(line: XmlElement, index: number, documentType: UblDocumentType): UblLine {
  const field = `${LINE_NAMES[documentType]}[${index + 1}]`;
  const quantity = QUANTITY_NAMES.map((name) => child(line, name)).find((node) => node !== null) ?? null;
  const descriptions = all(line, 'Item/Description').map((node) => node.text).filter(Boolean);
  return {
    id: text(line, 'ID') ?? String(index + 1),
    description: descriptions.length ? descriptions.join(' ') : (text(line, 'Item/Name') ?? ''),
    quantity: amount(quantity?.text || null, `${field} quantity`) ?? '0',
    unitCode: attribute(quantity, 'unitCode'),
    unitPrice: amount(text(line, 'Price/PriceAmount'), `${field} PriceAmount`) ?? '0.00',
    lineExtensionAmount: required(amount(text(line, 'LineExtensionAmount'), `${field} LineExtensionAmount`), `${field} LineExtensionAmount`),
    taxes: readTaxes(line, field),
    allowanceCharges: readAllowanceCharges(line, `${field} `),
    freeOfCharge: text(line, 'FreeOfChargeIndicator')?.toLowerCase() === 'true',
    referencePrice: readReferencePrice(line, field),
  };
}

/** The line's cac:PricingReference/cac:AlternativeConditionPrice with an amount; null without one. */
function readReferencePrice(line: XmlElement, field: string): UblLine['referencePrice'] {
  const price = first(line, 'PricingReference/AlternativeConditionPrice');
  const value = amount(text(price, 'PriceAmount'), `${field} PricingReference PriceAmount`);
  return value === null ? null : { amount: value, typeCode: text(price, 'PriceTypeCode'), type: text(price, 'PriceType') };
}

/**
 * A CUFE/CUDE/CUDS is the hex of a SHA-384: its case means nothing, and DIAN writes it in lower
 * case. One form, so the same document in upper case is the same document (the one-per-CUFE index
 * compares exactly). A code that is not hex is kept as written.
 */
export function canonicalUniqueCode(code: string): string {
  return /^[0-9A-Fa-f]+$/.test(code) ? code.toLowerCase() : code;
}

const REFERENCE_NAMES = ['InvoiceDocumentReference', 'CreditNoteDocumentReference', 'DebitNoteDocumentReference'];

/**
 * Every document a note corrects, in reading order: one cac:BillingReference per document (Anexo
 * técnico 1.9 lets a note correct several invoices), each with the first of its document
 * references that has an ID. Without any, the DiscrepancyResponse's ReferenceID (no CUFE).
 */
function readReferences(root: XmlElement): UblReference[] {
  const references = children(root, 'BillingReference').flatMap((billing) => {
    const reference = REFERENCE_NAMES.flatMap((name) => children(billing, name)).find((candidate) => text(candidate, 'ID'));
    if (!reference) return [];
    const cufe = text(reference, 'UUID');
    return [{ number: text(reference, 'ID')!, cufe: cufe === null ? null : canonicalUniqueCode(cufe), issueDate: parseIsoDate(text(reference, 'IssueDate')) }];
  });
  if (references.length) return references;
  const referenceId = text(root, 'DiscrepancyResponse/ReferenceID');
  return referenceId ? [{ number: referenceId, cufe: null, issueDate: null }] : [];
}

/** Extracts every UblDocument field from an Invoice, CreditNote or DebitNote root element. */
export function readDocument(root: XmlElement, documentType: UblDocumentType): UblDocument {
  const number = required(text(root, 'ID'), 'number (cbc:ID)');
  const uuid = first(root, 'UUID');
  const cufe = canonicalUniqueCode(required(uuid?.text || null, 'CUFE/CUDE (cbc:UUID)'));
  const issueDateText = required(text(root, 'IssueDate'), 'issue date (cbc:IssueDate)');
  const issueDate = parseIsoDate(issueDateText);
  if (!issueDate) throw new UblParseError('invalid_field', `cbc:IssueDate is not a YYYY-MM-DD date: ${JSON.stringify(issueDateText.slice(0, 40))}`);
  const issueTime = text(root, 'IssueTime');
  const currency = required(text(root, 'DocumentCurrencyCode'), 'currency (cbc:DocumentCurrencyCode)');

  // Debit notes carry RequestedMonetaryTotal; accept either element for any document type.
  const totalNames = documentType === 'DebitNote' ? ['RequestedMonetaryTotal', 'LegalMonetaryTotal'] : ['LegalMonetaryTotal', 'RequestedMonetaryTotal'];
  const totals = totalNames.map((name) => child(root, name)).find((node) => node !== null) ?? null;
  const totalsName = totals?.name ?? totalNames[0];
  const total = required(amount(text(totals, 'PayableAmount'), `${totalsName}/PayableAmount`), `payable amount (${totalsName}/PayableAmount)`);
  const subTotal = required(
    amount(text(totals, 'LineExtensionAmount'), `${totalsName}/LineExtensionAmount`),
    `subtotal (${totalsName}/LineExtensionAmount)`,
  );

  const supplier = readParty(child(root, 'AccountingSupplierParty'), 'supplier');
  const customer = readParty(child(root, 'AccountingCustomerParty'), 'customer');
  const taxes = readTaxes(root, 'TaxTotal');
  const vatAmounts = taxes.filter((tax) => tax.schemeId === VAT_SCHEME).map((tax) => tax.taxAmount);
  const lineElements = children(root, LINE_NAMES[documentType]);
  const lines = (lineElements.length ? lineElements : Object.values(LINE_NAMES).flatMap((name) => children(root, name))).map((line, index) =>
    readLine(line, index, documentType),
  );

  const cufeAlgorithm = attribute(uuid, 'schemeName');
  const typeCode = TYPE_CODE_NAMES.map((name) => text(root, name)).find(Boolean) ?? null;

  const document: UblDocument = {
    documentType,
    number,
    cufe,
    cufeAlgorithm,
    typeCode,
    ...classifyDocument(documentType, typeCode, cufeAlgorithm),
    dianEnvironment: dianEnvironmentOf(text(root, 'ProfileExecutionID')),
    issueDate,
    issueTime,
    issuedAt: toUtcInstant(issueDate, issueTime),
    dueDate: parseIsoDate(text(root, 'DueDate')) ?? parseIsoDate(text(root, 'PaymentMeans/PaymentDueDate')),
    currency,
    supplier,
    customer,
    subTotal,
    vat: vatAmounts.length ? storable(sumDecimals(vatAmounts), 'the sum of the VAT amounts (TaxTotal, scheme 01)') : null,
    taxExclusiveAmount: amount(text(totals, 'TaxExclusiveAmount'), `${totalsName}/TaxExclusiveAmount`),
    taxInclusiveAmount: amount(text(totals, 'TaxInclusiveAmount'), `${totalsName}/TaxInclusiveAmount`),
    total,
    taxes,
    withholdings: readWithholdings(root),
    allowanceCharges: readAllowanceCharges(root),
    allowanceTotalAmount: amount(text(totals, 'AllowanceTotalAmount'), `${totalsName}/AllowanceTotalAmount`),
    chargeTotalAmount: amount(text(totals, 'ChargeTotalAmount'), `${totalsName}/ChargeTotalAmount`),
    prepaidAmount: amount(text(totals, 'PrepaidAmount'), `${totalsName}/PrepaidAmount`),
    taxRoundingAmount: readTaxRounding(root),
    payableRoundingAmount: amount(text(totals, 'PayableRoundingAmount'), `${totalsName}/PayableRoundingAmount`),
    prepaidPayments: readPrepaidPayments(root),
    exchangeRate: readExchangeRate(root),
    lines,
    referencedDocuments: readReferences(root),
    notes: children(root, 'Note').map((note) => note.text).filter(Boolean),
  };
  refuseOverlongIdentifyingText(document);
  return document;
}

/**
 * The most characters kept of one identifying text of a document: its number and codes, the
 * parties' identification, names and contact details. Far above what DIAN's annex lets any of
 * them hold. These values travel in events, contacts and Temporal payloads (2 MB each, and a ZIP
 * holds up to 50 documents): a supplier name of 2.5 MB once stored its document and then failed
 * the import at the payload limit, with no event. Notes and line descriptions are not bounded
 * here: they stay in the document's row and its original.
 */
export const MAX_IDENTIFYING_TEXT_CHARS = 1_000;

function refuseOverlongIdentifyingText(document: UblDocument): void {
  const partyFields = (role: string, party: UblParty) =>
    [
      [`${role} id`, party.idNumber],
      [`${role} id type`, party.idType],
      [`${role} name`, party.name],
      [`${role} email`, party.email],
      [`${role} phone`, party.phone],
      [`${role} address`, party.address],
      [`${role} city`, party.city],
      [`${role} country code`, party.countryCode],
    ] as const;
  const fields = [
    ['number (cbc:ID)', document.number],
    ['CUFE/CUDE (cbc:UUID)', document.cufe],
    ['type code', document.typeCode],
    ['currency (cbc:DocumentCurrencyCode)', document.currency],
    ...document.referencedDocuments.flatMap((reference, index) => [
      [`referenced document ${index + 1} number`, reference.number],
      [`referenced document ${index + 1} CUFE`, reference.cufe],
    ] as const),
    ...partyFields('supplier', document.supplier),
    ...partyFields('customer', document.customer),
  ] as const;
  for (const [field, value] of fields) {
    if (value && value.length > MAX_IDENTIFYING_TEXT_CHARS) {
      throw new UblParseError('invalid_field', `the ${field} is ${value.length} characters long; at most ${MAX_IDENTIFYING_TEXT_CHARS} are accepted`);
    }
  }
}
