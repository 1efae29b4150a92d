import { createHash } from 'node:crypto';
import AdmZip from 'adm-zip';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import type { Repositories } from '../db/repositories';
import type { NewDocument } from '../db/repositories/documents';
import type { DocumentType } from '../domain/documents/collections';
import { nitCheckDigit } from '../domain/nit';
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

export function demoInvoiceXml(number: string, cufe: string, supplierNit: string, customerNit: string): Buffer {
  return Buffer.from(`<?xml version="1.0" encoding="UTF-8"?>
<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2" xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
  <cbc:ID>${number}</cbc:ID><cbc:UUID schemeName="CUFE-SHA384">${cufe}</cbc:UUID>
  <cbc:IssueDate>2026-11-02</cbc:IssueDate><cbc:IssueTime>10:00:00-05:00</cbc:IssueTime><cbc:DueDate>2026-12-02</cbc:DueDate><cbc:InvoiceTypeCode>01</cbc:InvoiceTypeCode>
  <cbc:DocumentCurrencyCode>COP</cbc:DocumentCurrencyCode>
  <cac:AccountingSupplierParty><cac:Party><cac:PartyTaxScheme><cbc:RegistrationName>Proveedor Demo S.A.S.</cbc:RegistrationName><cbc:CompanyID schemeID="${nitCheckDigit(supplierNit)}" schemeName="31">${supplierNit}</cbc:CompanyID></cac:PartyTaxScheme></cac:Party></cac:AccountingSupplierParty>
  <cac:AccountingCustomerParty><cac:Party><cac:PartyTaxScheme><cbc:RegistrationName>Cliente Demo</cbc:RegistrationName><cbc:CompanyID schemeID="${nitCheckDigit(customerNit)}" schemeName="31">${customerNit}</cbc:CompanyID></cac:PartyTaxScheme></cac:Party></cac:AccountingCustomerParty>
  <cac:TaxTotal><cbc:TaxAmount currencyID="COP">190000.00</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount currencyID="COP">1000000.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="COP">190000.00</cbc:TaxAmount><cac:TaxCategory><cbc:Percent>19.00</cbc:Percent><cac:TaxScheme><cbc:ID>01</cbc:ID><cbc:Name>IVA</cbc:Name></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>
  <cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="COP">1000000.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="COP">1000000.00</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="COP">1190000.00</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="COP">1190000.00</cbc:PayableAmount></cac:LegalMonetaryTotal>
  <cac:InvoiceLine><cbc:ID>1</cbc:ID><cbc:InvoicedQuantity unitCode="94">10</cbc:InvoicedQuantity><cbc:LineExtensionAmount currencyID="COP">1000000.00</cbc:LineExtensionAmount><cac:Item><cbc:Description>Servicio de consultoría</cbc:Description></cac:Item><cac:Price><cbc:PriceAmount currencyID="COP">100000.00</cbc:PriceAmount></cac:Price></cac:InvoiceLine>
</Invoice>
`);
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
  const file = await deps.repositories.uploadedFiles.insert({
    company_id: document.company_id,
    type: 'UPLOAD',
    status: 'DONE',
    file_name: original.fileName,
    extension,
    content_type: original.contentType,
    size: original.bytes.length,
    sha256,
    blob_key: blobKey,
  });
  return deps.repositories.documents.insert({
    ...document,
    imported_file_id: file.id,
    original_blob_key: blobKey,
    original_file_name: original.fileName,
    original_extension: extension,
    original_content_type: original.contentType,
    original_size: original.bytes.length,
    original_zip_pdf_entry: original.zipPdfEntry ?? null,
  });
}

export async function seedDemoDocuments(deps: { repositories: Repositories; blobStore: BlobStore }, company: { id: number; nit: string }) {
  const supplier = await deps.repositories.contacts.insert(company.id, {
    id_type: '31', id_number: '800197268', dv: nitCheckDigit('800197268'), name: 'Proveedor Demo S.A.S.',
    email: 'facturacion@proveedor.example', phone: null, address: 'Calle 100 # 10-20', city: 'Bogotá', country_code: 'CO',
  });
  const base = { company_id: company.id, kind: 'purchase' as const, contact_id: supplier.id, currency: 'COP' };
  const cufe = (n: number) => createHash('sha384').update(`demo-${company.id}-${n}`).digest('hex');
  const invoiceXml = demoInvoiceXml('FEDEMO1', cufe(1), '800197268', company.nit);
  const invoicePdf = await simplePdf('Factura electrónica FEDEMO1', ['Proveedor Demo S.A.S.', 'Total: $ 1.190.000,00 COP']);
  const amounts = { sub_total: '1000000.00', vat: '190000.00', total: '1190000.00' };
  const invoiceType = { dian_document_type: 'electronic_invoice', dian_type_code: '01', code_scheme: 'CUFE' } as const;

  const ids = {
    invoiceFromZip: await createDocumentWithOriginal(deps, { ...base, ...amounts, ...invoiceType, document_type: 'electronic_invoice', number: 'FEDEMO1', cufe: cufe(1), issued_at: new Date('2026-11-02T15:00:00Z'), due_date: '2026-12-02' },
      { fileName: 'FEDEMO1.zip', contentType: 'application/zip', bytes: zipOf([{ name: 'FEDEMO1.xml', data: invoiceXml }, { name: 'FEDEMO1.pdf', data: invoicePdf }]), zipPdfEntry: 'FEDEMO1.pdf' }),
    invoiceFromXml: await createDocumentWithOriginal(deps, { ...base, ...amounts, ...invoiceType, document_type: 'electronic_invoice', number: 'FEDEMO2', cufe: cufe(2), issued_at: new Date('2026-11-05T15:00:00Z'), due_date: '2026-12-05' },
      { fileName: 'FEDEMO2.xml', contentType: 'application/xml', bytes: demoInvoiceXml('FEDEMO2', cufe(2), '800197268', company.nit) }),
    creditNote: await createDocumentWithOriginal(deps, { ...base, document_type: 'credit_note', dian_document_type: 'credit_note', code_scheme: 'CUDE', number: 'NCDEMO1', cufe: cufe(3), issued_at: new Date('2026-11-06T15:00:00Z'), sub_total: '100000.00', vat: '19000.00', total: '119000.00', referenced_document_number: 'FEDEMO1', referenced_document_cufe: cufe(1) },
      { fileName: 'NCDEMO1.zip', contentType: 'application/zip', bytes: zipOf([{ name: 'NCDEMO1.xml', data: Buffer.from('<CreditNote/>') }, { name: 'NCDEMO1.pdf', data: await simplePdf('Nota crédito NCDEMO1') }]), zipPdfEntry: 'NCDEMO1.pdf' }),
    paymentClaim: await createDocumentWithOriginal(deps, { ...base, document_type: 'payment_claim_account', number: 'CC-001', issued_at: new Date('2026-11-07T15:00:00Z'), due_date: '2026-11-30', total: '850000.00', sub_total: '850000.00', vat: '0.00' },
      { fileName: 'cuenta-de-cobro-001.pdf', contentType: 'application/pdf', bytes: await simplePdf('Cuenta de cobro CC-001', ['Honorarios noviembre', 'Total: $ 850.000,00 COP']) }),
    paymentClaimWithoutFile: await createDocumentWithOriginal(deps, { ...base, document_type: 'payment_claim_account', number: 'CC-002', issued_at: new Date('2026-11-08T15:00:00Z'), total: '120000.00', sub_total: '120000.00', vat: '0.00' }, null),
    foreignInvoice: await createDocumentWithOriginal(deps, { ...base, document_type: 'foreign_invoice', number: 'INV-2026-0042', issued_at: new Date('2026-11-09T15:00:00Z'), currency: 'USD', total: '250.00', sub_total: '250.00', vat: '0.00' },
      { fileName: 'invoice-2026-0042.pdf', contentType: 'application/pdf', bytes: await simplePdf('Invoice INV-2026-0042', ['Cloud Services Inc.', 'Total: USD 250.00']) }),
  };
  return ids;
}
