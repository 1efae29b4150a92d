import { createHash } from 'node:crypto';
import AdmZip from 'adm-zip';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Repositories } from '../db/repositories';
import { dianColumns, type NewDocument } from '../db/repositories/documents';
import type { DocumentType } from '../domain/documents/collections';
import { nitCheckDigit } from '../domain/nit';
import { parseUbl } from '../domain/ubl/parse';
import { keySegment, type BlobStore } from '../storage/blob-store';

/**
 * Demo content for a first run (and for tests): one document of every kind, with originals in
 * the blob store, so the documents API and signed downloads can be tried before any upload.
 */
export type OriginalSpec = { fileName: string; bytes: Buffer; contentType: 'application/xml' | 'application/zip' | 'application/pdf'; zipPdfEntry?: string };

export async function simplePdf(title: string, lines: string[] = []): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  const page = pdf.addPage([595, 842]);
  const font = await pdf.embedFont(StandardFonts.Helvetica);
  page.drawText(title, { x: 50, y: 780, size: 18, font });
  lines.forEach((line, index) => page.drawText(line, { x: 50, y: 740 - index * 18, size: 11, font }));
  return Buffer.from(await pdf.save());
}

export type DemoInvoiceOptions = {
  /** YYYY-MM-DD; 2026-11-02 by default. */
  issueDate?: string;
  supplierName?: string;
  description?: string;
  /** Before VAT (19 %), two decimals; 1000000.00 by default. */
  subTotal?: string;
};

function demoAmounts(subTotal: string) {
  const cents = Math.round(Number(subTotal) * 100);
  const vat = Math.round(cents * 0.19);
  const money = (value: number) => (value / 100).toFixed(2);
  return { subTotal: money(cents), vat: money(vat), total: money(cents + vat), unitPrice: money(Math.round(cents / 10)) };
}

/** A minimal UBL 2.1 Invoice (10 units, IVA 19 %) from supplierNit to customerNit. */
export function demoInvoiceXml(number: string, cufe: string, supplierNit: string, customerNit: string, options: DemoInvoiceOptions = {}): Buffer {
  const issueDate = options.issueDate ?? '2026-11-02';
  const due = new Date(`${issueDate}T12:00:00Z`);
  due.setUTCMonth(due.getUTCMonth() + 1);
  const amounts = demoAmounts(options.subTotal ?? '1000000.00');
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:UBLVersionID>UBL 2.1</cbc:UBLVersionID><cbc:CustomizationID>10</cbc:CustomizationID><cbc:ProfileExecutionID>2</cbc:ProfileExecutionID>
  <cbc:ID>${number}</cbc:ID><cbc:UUID schemeID="2" schemeName="CUFE-SHA384">${cufe}</cbc:UUID>
  <cbc:IssueDate>${issueDate}</cbc:IssueDate><cbc:IssueTime>10:00:00-05:00</cbc:IssueTime><cbc:DueDate>${due.toISOString().slice(0, 10)}</cbc:DueDate>
  <cbc:InvoiceTypeCode>01</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>COP</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party><cac:PartyTaxScheme><cbc:RegistrationName>${options.supplierName ?? 'Proveedor Demo S.A.S.'}</cbc:RegistrationName><cbc:CompanyID schemeID="${nitCheckDigit(supplierNit)}" schemeName="31">${supplierNit}</cbc:CompanyID></cac:PartyTaxScheme></cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party><cac:PartyTaxScheme><cbc:RegistrationName>Cliente Demo</cbc:RegistrationName><cbc:CompanyID schemeID="${nitCheckDigit(customerNit)}" schemeName="31">${customerNit}</cbc:CompanyID></cac:PartyTaxScheme></cac:Party></cac:AccountingCustomerParty>
  <cac:TaxTotal><cbc:TaxAmount currencyID="COP">${amounts.vat}</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount currencyID="COP">${amounts.subTotal}</cbc:TaxableAmount><cbc:TaxAmount currencyID="COP">${amounts.vat}</cbc:TaxAmount><cac:TaxCategory><cbc:Percent>19.00</cbc:Percent><cac:TaxScheme><cbc:ID>01</cbc:ID><cbc:Name>IVA</cbc:Name></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="COP">${amounts.subTotal}</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="COP">${amounts.subTotal}</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="COP">${amounts.total}</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="COP">${amounts.total}</cbc:PayableAmount></cac:LegalMonetaryTotal>
  <cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="94">10</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="COP">${amounts.subTotal}</cbc:LineExtensionAmount><cac:Item><cbc:Description>${options.description ?? 'Servicio de consultoría'}</cbc:Description></cac:Item><cac:Price><cbc:PriceAmount currencyID="COP">${amounts.unitPrice}</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
</Invoice>
`);
}

/** DIAN's published technical key of the habilitación test set, used for the demo's CUFEs. */
const DEMO_TECHNICAL_KEY = 'fc8eac422eba16e22ffd8c6f94b3f40a6e38162c';

/**
 * A demo invoice whose CUFE follows the annex (SHA-384 of NumFac, FecFac, HorFac, ValFac, the
 * IVA/INC/ICA amounts, ValTot, the two NITs, the technical key and environment 2 = pruebas).
 */
export function demoElectronicInvoice(number: string, supplierNit: string, customerNit: string, options: DemoInvoiceOptions = {}): { cufe: string; xml: Buffer } {
  const amounts = demoAmounts(options.subTotal ?? '1000000.00');
  const cufe = createHash('sha384')
    .update(
      `${number}${options.issueDate ?? '2026-11-02'}10:00:00-05:00${amounts.subTotal}01${amounts.vat}040.00030.00${amounts.total}` +
        `${supplierNit}${customerNit}${DEMO_TECHNICAL_KEY}2`,
    )
    .digest('hex');
  return { cufe, xml: demoInvoiceXml(number, cufe, supplierNit, customerNit, options) };
}

export function zipOf(entries: { name: string; data: Buffer }[]): Buffer {
  const zip = new AdmZip();
  for (const entry of entries) zip.addFile(entry.name, entry.data);
  return zip.toBuffer();
}

/** Stores an original as an uploaded file and creates the document that came from it. */
export async function createDocumentWithOriginal(
  deps: { repositories: Repositories; blobStore: BlobStore },
  document: Omit<NewDocument, 'document_type'> & { document_type: DocumentType },
  original: OriginalSpec | null,
): Promise<number> {
  if (!original) return deps.repositories.documents.insert(document);
  const extension = original.fileName.includes('.') ? original.fileName.split('.').pop()!.toLowerCase() : '';
  const sha256 = createHash('sha256').update(original.bytes).digest('hex');
  const blobKey = `companies/${document.company_id}/uploads/${sha256.slice(0, 16)}-${keySegment(original.fileName)}`;
  await deps.blobStore.put(blobKey, original.bytes, original.contentType);
  const storedAt = new Date();
  const file = await deps.repositories.uploadedFiles.insert({
    company_id: document.company_id,
    type: 'UPLOAD',
    // As an import leaves it: DONE, processed, and listing the document it contains.
    status: 'DONE',
    created_at: storedAt,
    processed_at: storedAt,
    file_name: original.fileName,
    extension,
    content_type: original.contentType,
    size: original.bytes.length,
    sha256,
    blob_key: blobKey,
  });
  const documentId = await deps.repositories.documents.insert({
    ...document,
    imported_file_id: file.id,
    original_blob_key: blobKey,
    original_file_name: original.fileName,
    original_extension: extension,
    original_content_type: original.contentType,
    original_size: original.bytes.length,
    original_zip_pdf_entry: original.zipPdfEntry ?? null,
  });
  await deps.repositories.uploadedFiles.linkDocument(file, documentId);
  return documentId;
}

/**
 * What an import stores from the UBL: the parties and lines (DIAN events need the supplier), and
 * the DIAN type, environment and accounting columns, which the demo's invoices lacked until
 * 2026-11-25 (their tax_total was null beside a vat of 190000.00, as if never read).
 */
function ublColumns(xml: Buffer): Partial<NewDocument> {
  const { document } = parseUbl(xml);
  const columns = { ...dianColumns(document), supplier: JSON.stringify(document.supplier), customer: JSON.stringify(document.customer), lines: JSON.stringify(document.lines) };
  return columns as Partial<NewDocument>;
}

const demoCufe = (company: { id: number }, n: number) => createHash('sha384').update(`demo-${company.id}-${n}`).digest('hex');

/** The XML of the two electronic invoices seedDemoDocuments stores (FEDEMO1, FEDEMO2), byte for byte. */
export function demoSeededInvoiceXmls(company: { id: number; nit: string }): Buffer[] {
  return [
    demoInvoiceXml('FEDEMO1', demoCufe(company, 1), '800197268', company.nit),
    demoInvoiceXml('FEDEMO2', demoCufe(company, 2), '800197268', company.nit, { issueDate: '2026-11-05' }),
  ];
}

export async function seedDemoDocuments(deps: { repositories: Repositories; blobStore: BlobStore }, company: { id: number; nit: string }) {
  const supplier = await deps.repositories.contacts.insert(company.id, {
    id_type: '31', id_number: '800197268', dv: nitCheckDigit('800197268'), name: 'Proveedor Demo S.A.S.',
    email: 'facturacion@proveedor.example', phone: null, address: 'Calle 100 # 10-20', city: 'Bogotá', country_code: 'CO',
  });
  const base = { company_id: company.id, kind: 'purchase' as const, contact_id: supplier.id, currency: 'COP' };
  const cufe = (n: number) => demoCufe(company, n);
  const [invoiceXml, secondInvoiceXml] = demoSeededInvoiceXmls(company) as [Buffer, Buffer];
  const invoicePdf = await simplePdf('Factura electrónica FEDEMO1', ['Proveedor Demo S.A.S.', 'Total: $ 1.190.000,00 COP']);
  const amounts = { sub_total: '1000000.00', vat: '190000.00', total: '1190000.00' };
  const invoiceType = { dian_document_type: 'electronic_invoice', dian_type_code: '01', code_scheme: 'CUFE' } as const;

  const ids = {
    invoiceFromZip: await createDocumentWithOriginal(deps, { ...base, ...amounts, ...invoiceType, ...ublColumns(invoiceXml), document_type: 'electronic_invoice', number: 'FEDEMO1', cufe: cufe(1), issued_at: new Date('2026-11-02T15:00:00Z'), due_date: '2026-12-02' },
      { fileName: 'FEDEMO1.zip', contentType: 'application/zip', bytes: zipOf([{ name: 'FEDEMO1.xml', data: invoiceXml }, { name: 'FEDEMO1.pdf', data: invoicePdf }]), zipPdfEntry: 'FEDEMO1.pdf' }),
    invoiceFromXml: await createDocumentWithOriginal(deps, { ...base, ...amounts, ...invoiceType, ...ublColumns(secondInvoiceXml), document_type: 'electronic_invoice', number: 'FEDEMO2', cufe: cufe(2), issued_at: new Date('2026-11-05T15:00:00Z'), due_date: '2026-12-05' },
      { fileName: 'FEDEMO2.xml', contentType: 'application/xml', bytes: secondInvoiceXml }),
    creditNote: await createDocumentWithOriginal(deps, { ...base, document_type: 'credit_note', dian_document_type: 'credit_note', code_scheme: 'CUDE', number: 'NCDEMO1', cufe: cufe(3), issued_at: new Date('2026-11-06T15:00:00Z'), sub_total: '100000.00', vat: '19000.00', total: '119000.00', referenced_document_number: 'FEDEMO1', referenced_document_cufe: cufe(1), referenced_documents: JSON.stringify([{ number: 'FEDEMO1', cufe: cufe(1), issueDate: '2026-11-02' }]) },
      { fileName: 'NCDEMO1.zip', contentType: 'application/zip', bytes: zipOf([{ name: 'NCDEMO1.xml', data: Buffer.from('<CreditNote/>') }, { name: 'NCDEMO1.pdf', data: await simplePdf('Nota crédito NCDEMO1') }]), zipPdfEntry: 'NCDEMO1.pdf' }),
    paymentClaim: await createDocumentWithOriginal(deps, { ...base, document_type: 'payment_claim_account', number: 'CC-001', issued_at: new Date('2026-11-07T15:00:00Z'), due_date: '2026-11-30', total: '850000.00', sub_total: '850000.00', vat: '0.00' },
      { fileName: 'cuenta-de-cobro-001.pdf', contentType: 'application/pdf', bytes: await simplePdf('Cuenta de cobro CC-001', ['Honorarios noviembre', 'Total: $ 850.000,00 COP']) }),
    paymentClaimWithoutFile: await createDocumentWithOriginal(deps, { ...base, document_type: 'payment_claim_account', number: 'CC-002', issued_at: new Date('2026-11-08T15:00:00Z'), total: '120000.00', sub_total: '120000.00', vat: '0.00' }, null),
    foreignInvoice: await createDocumentWithOriginal(deps, { ...base, document_type: 'foreign_invoice', number: 'INV-2026-0042', issued_at: new Date('2026-11-09T15:00:00Z'), currency: 'USD', total: '250.00', sub_total: '250.00', vat: '0.00' },
      { fileName: 'invoice-2026-0042.pdf', contentType: 'application/pdf', bytes: await simplePdf('Invoice INV-2026-0042', ['Cloud Services Inc.', 'Total: USD 250.00']) }),
  };
  return ids;
}
