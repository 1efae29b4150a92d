/**
 * First-page header of the graphic representation: issuer, document identification and the
 * DIAN QR code on top; the CUFE/CUDE in full; then the customer and, for notes, the document
 * they amend. Every field is wrapped in its column and capped in lines so the header keeps a
 * bounded height whatever the input.
 */
import type { UblDocument, UblParty, UblReference } from '../ubl/types';
import { documentTitle, formatDate, formatExchangeRate, formatIssued, formatPartyId } from './format';
import {
  ACCENT, MARGIN, MUTED, PAGE_HEIGHT, PAGE_WIDTH, blocksHeight, drawBlocks, layoutBlocks,
  type BlockInput, type PageFlow,
} from './layout';
import { dianQrText, drawQr, type QrPlacement, type QrSymbol } from './qr';
import { dianCatalogueHost } from '../dian/catalogue';

/** Where the QR goes on the first page: the top-right corner, 100 pt square (quiet zone included). */
export const QR_PLACEMENT: QrPlacement = {
  x: PAGE_WIDTH - MARGIN - 100,
  y: PAGE_HEIGHT - MARGIN - 100,
  size: 100,
};

const GAP = 14;

function partyInputs(party: UblParty, nameSize: number): BlockInput[] {
  const small = { size: 8 };
  const inputs: BlockInput[] = [
    { text: party.name || '(sin nombre)', style: { size: nameSize, bold: true }, maxLines: 4 },
    { text: formatPartyId(party), style: small, gapBefore: 2, maxLines: 2 },
  ];
  if (party.address) inputs.push({ text: party.address, style: small, maxLines: 3 });
  const place = [party.city?.trim(), party.countryCode && party.countryCode !== 'CO' ? party.countryCode : null]
    .filter((part): part is string => Boolean(part))
    .join(', ');
  if (place) inputs.push({ text: place, style: small, maxLines: 2 });
  if (party.phone) inputs.push({ text: `Tel. ${party.phone}`, style: small, maxLines: 2 });
  if (party.email) inputs.push({ text: party.email, style: small, maxLines: 2 });
  return inputs;
}

function heading(text: string): BlockInput {
  return { text, style: { size: 7, bold: true, color: ACCENT }, maxLines: 1 };
}

/** The most references drawn in full: the header keeps a bounded height; the rest are counted. */
export const MAX_DRAWN_REFERENCES = 3;

function referenceInputs(document: UblDocument, references: UblReference[]): BlockInput[] {
  const kind = document.documentType === 'Invoice' ? 'Documento' : 'Factura';
  const inputs: BlockInput[] = [heading(references.length > 1 ? 'DOCUMENTOS REFERENCIADOS' : 'DOCUMENTO REFERENCIADO')];
  for (const reference of references.slice(0, MAX_DRAWN_REFERENCES)) {
    inputs.push({ text: `${kind} No. ${reference.number}`, style: { size: 9, bold: true }, gapBefore: 2, maxLines: 2 });
    if (reference.issueDate) inputs.push({ text: `Fecha de emisión: ${formatDate(reference.issueDate)}`, style: { size: 8 }, maxLines: 1 });
    if (reference.cufe) inputs.push({ text: `CUFE: ${reference.cufe}`, style: { size: 7.5 }, maxLines: 4 });
  }
  const rest = references.length - MAX_DRAWN_REFERENCES;
  if (rest > 0) inputs.push({ text: `y ${rest} documento${rest === 1 ? '' : 's'} más`, style: { size: 8 }, gapBefore: 2, maxLines: 1 });
  return inputs;
}

function detailInputs(document: UblDocument): BlockInput[] {
  const inputs: BlockInput[] = [heading('DETALLES')];
  if (document.typeCode) inputs.push({ text: `Tipo de documento: ${document.typeCode}`, style: { size: 8 }, gapBefore: 2, maxLines: 1 });
  inputs.push({ text: `Número de líneas: ${document.lines.length}`, style: { size: 8 }, maxLines: 1 });
  return inputs;
}

/** Draws the first-page header at the top of the flow's current page; returns the QR symbol drawn. */
export function drawDocumentHeader(flow: PageFlow, document: UblDocument): QrSymbol {
  const { fonts, page } = flow;
  const top = flow.y;
  const qr = drawQr(page, dianQrText(document.cufe, document.dianEnvironment), QR_PLACEMENT);

  const supplierWidth = 220;
  const infoX = flow.left + supplierWidth + GAP;
  const infoWidth = QR_PLACEMENT.x - GAP - infoX;
  const supplier = layoutBlocks(fonts, partyInputs(document.supplier, 12), supplierWidth);
  const issued = formatIssued(document.issuedAt, document.issueDate, document.issueTime);
  const infoInputs: BlockInput[] = [
    { text: documentTitle(document), style: { size: 11, bold: true, color: ACCENT }, maxLines: 2 },
    { text: `No. ${document.number}`, style: { size: 11, bold: true }, gapBefore: 2, maxLines: 3 },
    { text: `Fecha de emisión: ${issued.date}`, style: { size: 8 }, gapBefore: 4, maxLines: 1 },
  ];
  if (issued.time) infoInputs.push({ text: `Hora de emisión: ${issued.time}`, style: { size: 8 }, maxLines: 2 });
  if (document.dueDate) infoInputs.push({ text: `Fecha de vencimiento: ${formatDate(document.dueDate)}`, style: { size: 8 }, maxLines: 1 });
  infoInputs.push({ text: `Moneda: ${document.currency}`, style: { size: 8 }, maxLines: 1 });
  // DIAN requires the rate of a document in another currency (and some COP documents quote one): it is part of what was validated.
  if (document.exchangeRate) infoInputs.push({ text: formatExchangeRate(document.exchangeRate), style: { size: 8 }, maxLines: 2 });
  const info = layoutBlocks(fonts, infoInputs, infoWidth);

  drawBlocks(page, fonts, supplier, flow.left, top, supplierWidth);
  drawBlocks(page, fonts, info, infoX, top, infoWidth);
  flow.y = top - Math.max(blocksHeight(supplier), blocksHeight(info), QR_PLACEMENT.size) - 8;

  drawUniqueCode(flow, document);
  drawCustomerRow(flow, document);
  return qr;
}

function drawUniqueCode(flow: PageFlow, document: UblDocument): void {
  const { fonts, page } = flow;
  flow.rule(5);
  const label = `${document.codeScheme}:`;
  const labelWidth = fonts.bold.widthOfTextAtSize(label, 8) + 4;
  const codeBlocks = layoutBlocks(fonts, [{ text: document.cufe, style: { size: 8 }, maxLines: 4 }], flow.width - labelWidth);
  drawBlocks(page, fonts, layoutBlocks(fonts, [{ text: label, style: { size: 8, bold: true } }], labelWidth), flow.left, flow.y, labelWidth);
  flow.y -= drawBlocks(page, fonts, codeBlocks, flow.left + labelWidth, flow.y, flow.width - labelWidth);
  const algorithm = document.cufeAlgorithm ? `Algoritmo: ${document.cufeAlgorithm}. ` : '';
  const testing = document.dianEnvironment === 'testing' ? 'Documento del ambiente de habilitación (pruebas) de la DIAN. ' : '';
  const note = `${testing}${algorithm}Verifique este documento con el código QR o en ${dianCatalogueHost(document.dianEnvironment ?? 'production')}.`;
  const noteBlocks = layoutBlocks(fonts, [{ text: note, style: { size: 7, color: MUTED }, maxLines: 2 }], flow.width);
  flow.y -= drawBlocks(page, fonts, noteBlocks, flow.left, flow.y - 1, flow.width) + 1;
  flow.y -= 4;
  flow.rule(8);
}

function drawCustomerRow(flow: PageFlow, document: UblDocument): void {
  const { fonts, page } = flow;
  const columnWidth = (flow.width - GAP) / 2;
  const customer = layoutBlocks(fonts, [heading('ADQUIRIENTE'), ...partyInputs(document.customer, 10)], columnWidth);
  const right = layoutBlocks(
    fonts,
    document.referencedDocuments.length ? referenceInputs(document, document.referencedDocuments) : detailInputs(document),
    columnWidth,
  );
  const top = flow.y;
  drawBlocks(page, fonts, customer, flow.left, top, columnWidth);
  drawBlocks(page, fonts, right, flow.left + columnWidth + GAP, top, columnWidth);
  flow.y = top - Math.max(blocksHeight(customer), blocksHeight(right)) - 10;
}
