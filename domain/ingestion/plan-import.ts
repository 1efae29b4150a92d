import { contentTypeFor, detectFileType, extensionFor, type DetectedFileType } from '../files/detect';
import { ArchiveError, pairPdfWithXml, readZipSafely, type ArchiveFile } from '../files/zip';
import { parseUbl } from '../ubl/parse';
import { answersDocument, DIAN_REJECTED, dianVerdict, parseDianResponse, type DianResponse } from '../ubl/dian-response';
import { UblParseError, type UblDocument, type UblParty, type UblValidation } from '../ubl/types';
import type { DocumentType } from '../documents/collections';

/** Kinds a bare PDF can be declared as (it carries no DIAN data of its own). */
export const PDF_KINDS = ['electronic_invoice', 'payment_claim_account', 'foreign_invoice'] as const;
export type PdfKind = (typeof PDF_KINDS)[number];

/** One document an uploaded file will create, before it touches the database. */
export type DocumentDraft = {
  documentType: DocumentType;
  kind: 'purchase' | 'sale';
  /** The other party: the supplier of a purchase, the customer of a sale; becomes a contact. */
  counterpart: UblParty | null;
  ubl: UblDocument | null;
  validation: UblValidation | null;
  /** The PDF inside the original ZIP that belongs to this document. */
  zipPdfEntry: string | null;
  /** For a bare PDF: the file name stands in for the number. */
  fallbackNumber: string | null;
};

export type ImportPlan =
  | { ok: true; fileType: DetectedFileType; drafts: DocumentDraft[] }
  | { ok: false; code: string; message: string };

/** Progress of planImport, for heartbeats: the archive was read, or one document (XML) was parsed. */
export type ImportStep = { step: 'archive_read'; entries: number } | { step: 'document_parsed'; entry: string | null };

const DOCUMENT_TYPE_OF = { Invoice: 'electronic_invoice', CreditNote: 'credit_note', DebitNote: 'debit_note' } as const;

/**
 * What importing a file means, decided from its bytes alone: an XML is one DIAN document, a ZIP
 * holds one or more (each paired with its PDF when present), a PDF is one document of the
 * declared kind. Each DIAN document must name the company as customer (a purchase) or
 * supplier (a sale). Never throws for bad input: failures come back with a stable code.
 * `progress` is told after the archive is read and after each document is parsed.
 */
export function planImport(
  bytes: Buffer,
  fileName: string,
  companyNit: string,
  pdfKind: PdfKind | null,
  progress: (step: ImportStep) => void = () => undefined,
): ImportPlan {
  const fileType = detectFileType(bytes);
  if (!fileType) return { ok: false, code: 'unsupported_file_type', message: 'The file is not XML, ZIP or PDF.' };
  try {
    if (fileType === 'pdf') {
      if (!looksLikeCompletePdf(bytes)) return { ok: false, code: 'invalid_pdf', message: 'The file starts like a PDF but is not a complete PDF document.' };
      return { ok: true, fileType, drafts: [pdfDraft(pdfKind ?? 'electronic_invoice', fileName)] };
    }
    if (fileType === 'xml') {
      const draft = ublDraft(bytes, companyNit, null);
      progress({ step: 'document_parsed', entry: null });
      return { ok: true, fileType, drafts: [draft] };
    }
    const contents = readZipSafely(bytes);
    progress({ step: 'archive_read', entries: contents.xmls.length + contents.pdfs.length + contents.ignored.length });
    const { documents, others } = zipDocuments(contents.xmls, companyNit, progress);
    if (documents.length === 0) {
      if (contents.pdfs.length === 1 && pdfKind) return { ok: true, fileType, drafts: [pdfDraft(pdfKind, contents.pdfs[0].name)] };
      const besides = others.length ? ` (${others.map((name) => JSON.stringify(name)).join(', ')} ${others.length === 1 ? 'is' : 'are'} XML of another kind)` : '';
      return { ok: false, code: 'no_documents_in_archive', message: `The ZIP holds no DIAN XML document${besides}.` };
    }
    const pdfs = contents.pdfs.filter((pdf) => looksLikeCompletePdf(pdf.data));
    const paired = pairPdfWithXml(documents.map(({ xml }) => xml), pdfs).map(({ pdf }, index) => ({ ...documents[index].draft, zipPdfEntry: pdf?.name ?? null }));
    return { ok: true, fileType, drafts: withTheOnlyPdf(oneDraftPerCufe(paired), pdfs) };
  } catch (error) {
    if (error instanceof UblParseError || error instanceof ArchiveError || error instanceof ImportRefusal) {
      return { ok: false, code: error.code, message: error.message };
    }
    throw error;
  }
}

class ImportRefusal extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
  }
}

/**
 * The DIAN documents among a ZIP's XML entries, each parsed. An entry of another kind (DIAN's
 * ApplicationResponse saved beside the invoice, a provider's own XML) is set aside like any
 * other file that is no document; an entry that is a DIAN document but cannot be imported
 * refuses the whole file, its error naming the entry.
 */
function zipDocuments(xmls: readonly ArchiveFile[], companyNit: string, progress: (step: ImportStep) => void) {
  const documents: { xml: ArchiveFile; draft: DocumentDraft }[] = [];
  const others: string[] = [];
  const responses: DianResponse[] = [];
  for (const xml of xmls) {
    try {
      documents.push({ xml, draft: ublDraft(xml.data, companyNit, null) });
    } catch (error) {
      if (error instanceof UblParseError && error.code === 'unsupported_document') {
        others.push(xml.name);
        const response = parseDianResponse(xml.data);
        if (response) responses.push(response);
        continue;
      }
      if (error instanceof UblParseError) throw new UblParseError(error.code, `entry ${JSON.stringify(xml.name)}: ${error.message}`);
      if (error instanceof ImportRefusal) throw new ImportRefusal(error.code, `Entry ${JSON.stringify(xml.name)}: ${error.message}`);
      throw error;
    }
    progress({ step: 'document_parsed', entry: xml.name });
  }
  return { documents: documents.map((entry) => ({ ...entry, draft: withResponseBeside(entry.draft, entry.xml.name, responses) })), others };
}

/**
 * A bare document's validation from DIAN's ApplicationResponse saved beside it in the ZIP (the
 * response naming its CUFE), as an AttachedDocument would carry it: a rejection beside a bare
 * invoice refuses it like a rejection inside the container (before 2026-11-25 it was set aside
 * and the rejected invoice imported as valid). A response naming no document is not matched.
 */
function withResponseBeside(draft: DocumentDraft, entryName: string, responses: readonly DianResponse[]): DocumentDraft {
  const cufe = draft.ubl?.cufe;
  if (!cufe || draft.validation) return draft;
  const answers = responses.filter((response) => answersDocument(response, cufe, false));
  const answer = answers.find((response) => dianVerdict(response.validation) === 'rejected') ?? answers.find((response) => dianVerdict(response.validation) === 'validated');
  if (!answer) return draft;
  refuseIfRejectedByDian(draft.ubl!.number, answer.validation, `Entry ${JSON.stringify(entryName)}: `);
  return { ...draft, validation: answer.validation };
}

/**
 * One draft per CUFE: a ZIP may hold both the AttachedDocument and the bare invoice it wraps.
 * The one carrying DIAN's validation (the AttachedDocument) is kept, with the PDF either had.
 */
function oneDraftPerCufe(drafts: DocumentDraft[]): DocumentDraft[] {
  const positionOf = new Map<string, number>();
  const kept: DocumentDraft[] = [];
  for (const draft of drafts) {
    const cufe = draft.ubl?.cufe.toLowerCase();
    const position = cufe === undefined ? undefined : positionOf.get(cufe);
    if (position === undefined) {
      if (cufe !== undefined) positionOf.set(cufe, kept.length);
      kept.push(draft);
      continue;
    }
    const earlier = kept[position]!;
    const [preferred, other] = !earlier.validation && draft.validation ? [draft, earlier] : [earlier, draft];
    kept[position] = { ...preferred, zipPdfEntry: preferred.zipPdfEntry ?? other.zipPdfEntry };
  }
  return kept;
}

/**
 * A ZIP of one document and one PDF: that PDF is the document's, whatever its name, also when the
 * document came as several XMLs (the AttachedDocument and the invoice it wraps), which pairing by
 * name alone left without it.
 */
function withTheOnlyPdf(drafts: DocumentDraft[], pdfs: readonly ArchiveFile[]): DocumentDraft[] {
  if (drafts.length !== 1 || pdfs.length !== 1 || drafts[0].zipPdfEntry !== null) return drafts;
  return [{ ...drafts[0], zipPdfEntry: pdfs[0].name }];
}

function ublDraft(xml: Buffer, companyNit: string, zipPdfEntry: string | null): DocumentDraft {
  const parsed = parseUbl(xml);
  const document = parsed.document;
  const isCustomer = sameNit(document.customer.idNumber, companyNit);
  const isSupplier = sameNit(document.supplier.idNumber, companyNit);
  if (!isCustomer && !isSupplier) {
    throw new ImportRefusal(
      'company_not_a_party',
      `Document ${document.number} names neither this company (NIT ${companyNit}) as customer (${document.customer.idNumber}) nor as supplier (${document.supplier.idNumber}).`,
    );
  }
  refuseIfRejectedByDian(document.number, parsed.validation);
  const kind = isCustomer ? 'purchase' : 'sale';
  return {
    documentType: DOCUMENT_TYPE_OF[document.documentType],
    kind,
    counterpart: kind === 'purchase' ? document.supplier : document.customer,
    ubl: document,
    validation: parsed.validation,
    zipPdfEntry,
    fallbackNumber: null,
  };
}

/**
 * A document whose AttachedDocument carries DIAN's rejection has no validity as an invoice or
 * note: importing it would let it be exported to the books and answered with events. Any other
 * code (or none) imports as before.
 */
function refuseIfRejectedByDian(number: string, validation: UblValidation | null, where = ''): void {
  if (!validation || dianVerdict(validation) !== 'rejected') return;
  const reason = validation.description ? `: ${validation.description.slice(0, 200)}` : '';
  throw new ImportRefusal(
    'dian_rejected_document',
    `${where}Document ${number} was rejected by DIAN (ApplicationResponse code ${DIAN_REJECTED}${reason}); a rejected document has no validity and is not imported.`,
  );
}

function pdfDraft(kind: PdfKind, fileName: string): DocumentDraft {
  return {
    documentType: kind,
    kind: 'purchase',
    counterpart: null,
    ubl: null,
    validation: null,
    zipPdfEntry: null,
    fallbackNumber: fileName.replace(/\.[A-Za-z0-9]{1,5}$/, '').slice(0, 100) || null,
  };
}

/**
 * A cheap structural check: a PDF ends with a cross-reference pointer and %%EOF. It refuses
 * truncated files and bytes that merely start with %PDF-; it does not render the document.
 */
export function looksLikeCompletePdf(bytes: Buffer): boolean {
  const tail = bytes.subarray(Math.max(0, bytes.length - 2048)).toString('latin1');
  return bytes.subarray(0, 1024).toString('latin1').includes('%PDF-') && /startxref\s+\d+\s+%%EOF/.test(tail);
}

function sameNit(a: string, b: string): boolean {
  const digits = (value: string) => value.replace(/[^0-9]/g, '').replace(/^0+/, '');
  return digits(a) !== '' && digits(a) === digits(b);
}

export function describeFileType(fileType: DetectedFileType) {
  return { extension: extensionFor(fileType), contentType: contentTypeFor(fileType) };
}
