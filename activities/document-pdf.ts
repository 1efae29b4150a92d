import AdmZip from 'adm-zip';
import type { DocumentRow } from '../db/repositories/documents';
import type { PdfProducer } from './document-files';

const MAX_PDF_BYTES = 20 * 1024 * 1024;

/**
 * The on-demand PDF of a document: the PDF found inside its original ZIP when there is one.
 * (Generation from the XML plugs in here with the graphic-representation renderer.)
 */
export const producePdfFromOriginal: PdfProducer = async (document: DocumentRow, original: Buffer) => {
  if (document.original_content_type === 'application/zip' && document.original_zip_pdf_entry) {
    const entry = new AdmZip(original).getEntry(document.original_zip_pdf_entry);
    if (!entry || entry.header.size > MAX_PDF_BYTES) return null;
    return entry.getData();
  }
  return null;
};
