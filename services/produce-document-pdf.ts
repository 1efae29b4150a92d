import type { DocumentRow } from '../db/repositories/documents';
import { readZipSafely } from '../domain/files/zip';
import { renderInvoicePdf } from '../domain/pdf/render-invoice';
import { parseUbl } from '../domain/ubl/parse';
import type { UblDocument } from '../domain/ubl/types';

/**
 * The on-demand PDF of a document (spec, Files object): the PDF inside its original ZIP when
 * there is one; otherwise, for an electronic invoice, the graphic representation generated
 * from its XML (the one whose CUFE matches, when a ZIP holds several).
 */
export type PdfSource = Pick<DocumentRow, 'original_content_type' | 'original_zip_pdf_entry' | 'document_type' | 'cufe' | 'created_at'>;

/** In the calling thread: the API and the worker run it in the CPU pool (services/cpu/pool.ts producePdfInPool). */
export const producePdfFromOriginal = async (document: PdfSource, original: Buffer): Promise<Buffer | null> => {
  if (document.original_content_type === 'application/zip') {
    const contents = readZipSafely(original);
    if (document.original_zip_pdf_entry) {
      return contents.pdfs.find((pdf) => pdf.name === document.original_zip_pdf_entry)?.data ?? null;
    }
    if (document.document_type !== 'electronic_invoice') return null;
    const parsed = contents.xmls.map((xml) => parseUbl(xml.data).document);
    const match = parsed.find((candidate) => candidate.cufe === document.cufe) ?? (parsed.length === 1 ? parsed[0] : undefined);
    return match ? render(match, document) : null;
  }
  if (document.original_content_type === 'application/xml' && document.document_type === 'electronic_invoice') {
    return render(parseUbl(original).document, document);
  }
  return null;
};

async function render(ubl: UblDocument, document: PdfSource): Promise<Buffer> {
  // Generated once per document and stored; dated by the document's creation for stable bytes.
  return Buffer.from(await renderInvoicePdf(ubl, { generatedAt: document.created_at }));
}
