import type { Logger } from 'pino';
import type { DocumentRow, DocumentsRepository } from '../db/repositories/documents';
import { filesObject, type OriginalFile } from '../domain/documents/files-object';
import { BlobNotFoundError, type BlobStore } from '../storage/blob-store';

/**
 * Produces the bytes of an on-demand PDF from a document's original (the PDF inside its ZIP,
 * or a graphic representation generated from its XML); null when it cannot.
 */
export type PdfProducer = (document: DocumentRow, original: Buffer) => Promise<Buffer | null>;

/** The original's size as recorded at import (bigint: pg may return it as a string), when it is. */
function recordedSize(document: DocumentRow): number | undefined {
  const size = Number(document.original_size);
  return document.original_size !== null && document.original_size !== undefined && Number.isSafeInteger(size) && size > 0 ? size : undefined;
}

export function originalOf(document: DocumentRow): OriginalFile {
  if (!document.original_blob_key || !document.original_content_type) return null;
  return {
    fileName: document.original_file_name ?? 'original',
    extension: document.original_extension ?? '',
    contentType: document.original_content_type,
    size: document.original_size ?? 0,
    zipPdfEntry: document.original_zip_pdf_entry,
  };
}

/**
 * Signed download URLs for a document's original and PDF. An on-demand PDF is produced on the
 * first request, stored, and served as a plain redirect afterwards.
 */
export function createDocumentFiles(deps: {
  blobStore: BlobStore;
  documents: DocumentsRepository;
  producePdf: PdfProducer;
  logger: Logger;
}) {
  const pdfKey = (document: DocumentRow) => `companies/${document.company_id}/documents/${document.id}/representation.pdf`;
  const pdfName = (document: DocumentRow) => `${document.number ?? `document-${document.id}`}.pdf`;
  /**
   * Renders in flight, keyed by tenant, document and the original the PDF is made from: N
   * requests for a PDF not yet stored share one render in the CPU pool instead of starting N
   * (a cheap amplification). Per process; the entry is dropped when the render settles, so a
   * failed render is tried again by the next request, and the stored PDF serves the rest.
   */
  const rendersInFlight = new Map<string, Promise<boolean>>();
  const renderKey = (document: DocumentRow) =>
    JSON.stringify([document.company_id, document.id, document.original_blob_key, document.original_zip_pdf_entry]);

  return {
    /** null: the document has no original file. */
    async originalUrl(document: DocumentRow): Promise<string | null> {
      const original = originalOf(document);
      if (!original || !document.original_blob_key) return null;
      return deps.blobStore.signedDownloadUrl(document.original_blob_key, { fileName: original.fileName, contentType: original.contentType, size: recordedSize(document) });
    },

    /** null: no PDF exists for this document, or an on-demand one could not be produced. */
    async pdfUrl(document: DocumentRow): Promise<string | null> {
      const { pdf } = filesObject(document.document_type, originalOf(document));
      if (pdf.status === 'none' || !document.original_blob_key) return null;
      if (pdf.status === 'available') {
        return deps.blobStore.signedDownloadUrl(document.original_blob_key, { fileName: document.original_file_name ?? pdfName(document), contentType: 'application/pdf', size: recordedSize(document) });
      }
      if (!document.pdf_blob_key) {
        const produced = await this.produceOnce(document);
        if (!produced) return null;
      }
      return deps.blobStore.signedDownloadUrl(pdfKey(document), { fileName: pdfName(document), contentType: 'application/pdf' });
    },

    /** produce, shared with the requests for the same document whose render is already in flight. */
    produceOnce(document: DocumentRow): Promise<boolean> {
      const key = renderKey(document);
      const inFlight = rendersInFlight.get(key);
      if (inFlight) return inFlight;
      const render = this.produce(document).finally(() => rendersInFlight.delete(key));
      rendersInFlight.set(key, render);
      return render;
    },

    /**
     * Produces and stores the on-demand PDF; false when it cannot be produced from this original
     * (the producer refused or failed on it, or the original is gone), which the API answers 404
     * file_not_available: retrying would give the same. A failure of the file store or the
     * database (unreachable, full) is thrown, not turned into that 404: a retry can succeed, so
     * it is answered as what it is (503, 507, 500).
     */
    async produce(document: DocumentRow): Promise<boolean> {
      let original: Buffer;
      try {
        original = await deps.blobStore.get(document.original_blob_key!);
      } catch (error) {
        if (!(error instanceof BlobNotFoundError)) throw error;
        deps.logger.warn({ err: error, documentId: document.id }, 'on-demand PDF could not be produced: the original is missing from the file store');
        return false;
      }
      let bytes: Buffer | null;
      try {
        bytes = await deps.producePdf(document, original);
      } catch (error) {
        deps.logger.warn({ err: error, documentId: document.id }, 'on-demand PDF could not be produced');
        return false;
      }
      if (!bytes) return false;
      await deps.blobStore.put(pdfKey(document), bytes, 'application/pdf');
      await deps.documents.setPdfBlobKey(document.id, pdfKey(document));
      return true;
    },
  };
}

export type DocumentFiles = ReturnType<typeof createDocumentFiles>;
