import type { DocumentType } from './collections';

export type OriginalFile = {
  fileName: string;
  extension: string;
  contentType: string;
  size: number;
  /** Name of a PDF inside the original ZIP, when there is one. */
  zipPdfEntry: string | null;
} | null;

export type FilesObject = {
  original:
    | { available: false }
    | { available: true; file_name: string; extension: string; content_type: string; size: number };
  pdf: { status: 'available' | 'on_demand' | 'none'; source: 'original' | 'service' | null };
};

type OriginalKind = 'xml' | 'zip' | 'pdf' | 'other';

function originalKind(original: NonNullable<OriginalFile>): OriginalKind {
  if (original.contentType === 'application/pdf') return 'pdf';
  if (original.contentType === 'application/zip') return 'zip';
  if (original.contentType === 'application/xml') return 'xml';
  return 'other';
}

/**
 * The spec's Files object, derived from the original file only (never stored, so it can never
 * disagree with it). Which PDF a kind can offer follows the spec's table:
 * - any PDF original: available, source original;
 * - electronic invoice: XML or ZIP → on_demand (the PDF inside the ZIP, or generated from the XML);
 * - credit/debit note: XML → none; ZIP → on_demand only when the ZIP holds a PDF;
 * - payment-claim account and foreign invoice: only a PDF original, else none.
 */
export function filesObject(type: DocumentType, original: OriginalFile): FilesObject {
  if (!original) return { original: { available: false }, pdf: { status: 'none', source: null } };
  const described = {
    available: true as const,
    file_name: original.fileName,
    extension: original.extension,
    content_type: original.contentType,
    size: original.size,
  };
  return { original: described, pdf: pdfOffer(type, originalKind(original), original.zipPdfEntry !== null) };
}

function pdfOffer(type: DocumentType, kind: OriginalKind, zipHasPdf: boolean): FilesObject['pdf'] {
  if (kind === 'pdf') return { status: 'available', source: 'original' };
  const onDemand = { status: 'on_demand', source: 'service' } as const;
  const none = { status: 'none', source: null } as const;
  switch (type) {
    case 'electronic_invoice':
      return kind === 'xml' || kind === 'zip' ? onDemand : none;
    case 'credit_note':
    case 'debit_note':
      return kind === 'zip' && zipHasPdf ? onDemand : none;
    default:
      return none;
  }
}
