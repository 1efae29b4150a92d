/**
 * "Representación gráfica" of a DIAN electronic invoice, credit note or debit note: a PDF
 * (US Letter, portrait) drawn with pdf-lib's standard Helvetica fonts from a parsed
 * `UblDocument`. Amounts are formatted from their decimal strings, all text is made
 * WinAnsi-safe, and the line table flows over as many pages as needed, each numbered
 * "Página X de Y".
 */
import { PDFDocument } from 'pdf-lib';
import type { UblDocument } from '../ubl/types';
import { drawLineTable, drawNotes, drawTaxesAndTotals } from './body';
import { documentTitle, formatColombianDateTime, formatPartyId, graphicRepresentationOf } from './format';
import { drawDocumentHeader } from './header';
import { MARGIN, MUTED, PAGE_WIDTH, RULE, drawLine, embedFonts, fitLine, type Fonts, PageFlow } from './layout';
import type { QrSymbol } from './qr';

export type RenderInvoiceOptions = {
  /** Printed in the footer and stored as the PDF's creation date; defaults to now. */
  generatedAt?: Date;
};

export type RenderedInvoice = {
  pdf: Uint8Array;
  pageCount: number;
  /** The QR symbol drawn on the first page (module size and dark-module runs). */
  qr: QrSymbol;
};

export async function renderInvoicePdf(document: UblDocument, options: RenderInvoiceOptions = {}): Promise<Uint8Array> {
  return (await renderInvoice(document, options)).pdf;
}

/** `renderInvoicePdf` with what was drawn, for tests and diagnostics. */
export async function renderInvoice(document: UblDocument, options: RenderInvoiceOptions = {}): Promise<RenderedInvoice> {
  const generatedAt = options.generatedAt ?? new Date();
  const title = documentTitle(document);
  const pdf = await PDFDocument.create();
  pdf.setTitle(`${title} ${document.number}`);
  pdf.setSubject(`Representación gráfica de documento electrónico DIAN ${document.number}`);
  pdf.setAuthor(document.supplier.name);
  pdf.setCreator('document-invoicing-service');
  pdf.setProducer('document-invoicing-service (pdf-lib)');
  pdf.setCreationDate(generatedAt);
  pdf.setModificationDate(generatedAt);

  const fonts = await embedFonts(pdf);
  const flow = new PageFlow(pdf, fonts, (next) => drawContinuationHeader(next, document));
  const qr = drawDocumentHeader(flow, document);
  drawLineTable(flow, document);
  drawTaxesAndTotals(flow, document);
  drawNotes(flow, document);
  drawFooters(flow, fonts, document, generatedAt);

  const bytes = await pdf.save({ useObjectStreams: true });
  return { pdf: bytes, pageCount: flow.pages.length, qr };
}

/** What pages 2..N start with: which document they belong to. */
function drawContinuationHeader(flow: PageFlow, document: UblDocument): void {
  const { fonts, page } = flow;
  const half = flow.width / 2;
  const baseline = flow.y - 9;
  const left = fitLine(`${documentTitle(document)} No. ${document.number}`, fonts.bold, 9, half - 6);
  const right = fitLine(`${document.supplier.name} · ${formatPartyId(document.supplier)}`, fonts.regular, 8, half - 6);
  drawLine(page, fonts, left, flow.left, baseline, { size: 9, bold: true });
  drawLine(page, fonts, right, flow.left + half, baseline, { size: 8, color: MUTED }, 'right', half);
  flow.y -= 15;
  flow.rule(10);
}

function drawFooters(flow: PageFlow, fonts: Fonts, document: UblDocument, generatedAt: Date): void {
  const total = flow.pages.length;
  const generated = formatColombianDateTime(generatedAt) ?? '';
  const note = `${graphicRepresentationOf(document)} No. ${document.number}. Generada el ${generated} (hora de Colombia).`;
  const numberWidth = 80;
  flow.pages.forEach((page, index) => {
    const ruleY = MARGIN + 12;
    page.drawLine({ start: { x: MARGIN, y: ruleY }, end: { x: PAGE_WIDTH - MARGIN, y: ruleY }, thickness: 0.6, color: RULE });
    const baseline = MARGIN + 2;
    drawLine(page, fonts, fitLine(note, fonts.regular, 7, flow.width - numberWidth - 8), MARGIN, baseline, { size: 7, color: MUTED });
    drawLine(page, fonts, `Página ${index + 1} de ${total}`, PAGE_WIDTH - MARGIN - numberWidth, baseline, { size: 8 }, 'right', numberWidth);
  });
}
