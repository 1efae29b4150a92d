/**
 * The flowing part of the graphic representation: the line table, the tax breakdown with the
 * totals beside it, and the notes. Each piece moves to a new page when it does not fit.
 */
import { rateToCop, toCop, COP } from '../documents/cop-equivalents';
import type { UblDocument, UblLine, UblTax } from '../ubl/types';
import { leavesPrepaidUndeducted } from '../ubl/totals-consistency';
import { formatTaxScheme } from './format';
import { SHADE, baselineOffset, drawLine, lineHeight, printableText, wrapText, type PageFlow, type TextStyle } from './layout';
import { formatAmount, formatMoney, formatPercent, formatQuantity } from './money';
import { drawTable, tableHeight, type Column } from './table';

/**
 * The line's description, then its own discounts and charges: they are already in the line's
 * total, and without them quantity × unit value would not add up to it.
 */
function describeLine(line: UblLine): string {
  const adjustments = (line.allowanceCharges ?? []).map((entry) => {
    const label = entry.chargeIndicator ? 'Cargo' : 'Descuento';
    const percent = entry.percent === null ? '' : ` ${formatPercent(entry.percent)}`;
    const reason = entry.reason ? ` (${entry.reason})` : '';
    return `${label}${percent}${reason}: ${entry.chargeIndicator ? '' : '-'}${formatAmount(entry.amount)}`;
  });
  return [line.description && printableText(line.description), freeItemNote(line), ...adjustments].filter(Boolean).join('\n');
}

/** DIAN's names of the reference price types (Anexo Técnico 1.9, table 13.3.7). */
const REFERENCE_PRICE_TYPES: Record<string, string> = { '01': 'Valor comercial', '02': 'Valor en inventarios', '03': 'Otro valor' };

/**
 * A free item shows 0 as its value, yet carries taxes: they are computed on its reference price,
 * which the reader needs to see to make sense of them.
 */
function freeItemNote(line: UblLine): string | null {
  if (!line.freeOfCharge) return null;
  const reference = line.referencePrice;
  if (!reference) return 'Sin costo (muestra gratis)';
  const label = (reference.typeCode && REFERENCE_PRICE_TYPES[reference.typeCode.trim()]) ?? reference.type ?? 'Valor de referencia';
  return `Sin costo (muestra gratis). ${label}: ${formatAmount(reference.amount)}`;
}

export function drawLineTable(flow: PageFlow, document: UblDocument): void {
  const currency = document.currency.trim();
  const columns: Column[] = [
    { header: '#', width: 28, align: 'left' },
    { header: 'Descripción', width: 242, align: 'left' },
    { header: 'Cantidad', width: 76, align: 'right' },
    { header: `Valor unitario (${currency})`, width: 97, align: 'right' },
    { header: `Total (${currency})`, width: 97, align: 'right' },
  ];
  const rows = document.lines.map((line) => [
    line.id,
    describeLine(line),
    [formatQuantity(line.quantity), line.unitCode ?? ''].join(' ').trim(),
    formatAmount(line.unitPrice),
    formatAmount(line.lineExtensionAmount),
  ]);
  flow.sectionTitle('DETALLE', 40);
  if (rows.length === 0) {
    flow.paragraph('El documento no tiene líneas.', { size: 8 });
    return;
  }
  drawTable(flow, columns, rows);
  flow.y -= 12;
}

type TotalRow = { label: string; value: string; strong?: boolean };

const isZero = (amount: string) => /^[+-]?0+(\.0+)?$/.test(amount);

/**
 * What stands between the total with taxes and the total to pay (Anexo Técnico 1.9,
 * LegalMonetaryTotal: PayableAmount = TaxInclusiveAmount − AllowanceTotalAmount +
 * ChargeTotalAmount − PrepaidAmount + PayableRoundingAmount), in that order; amounts the
 * document does not carry, or carries as zero, are left out.
 */
function payableAdjustments(document: UblDocument): { label: string; amount: string }[] {
  const adjustments = [
    { label: '(-) Descuentos', amount: document.allowanceTotalAmount },
    { label: '(+) Cargos', amount: document.chargeTotalAmount },
    { label: '(-) Anticipos', amount: leavesPrepaidUndeducted(document) ? null : document.prepaidAmount },
    { label: 'Redondeo', amount: document.payableRoundingAmount },
  ];
  return adjustments.filter((entry): entry is { label: string; amount: string } => entry.amount !== null && !isZero(entry.amount));
}

function totalRows(document: UblDocument): TotalRow[] {
  const money = (value: string) => formatMoney(value, document.currency);
  const rows: TotalRow[] = [{ label: 'Subtotal', value: money(document.subTotal) }];
  if (document.taxExclusiveAmount !== null) rows.push({ label: 'Base gravable', value: money(document.taxExclusiveAmount) });
  if (document.vat !== null) rows.push({ label: 'IVA', value: money(document.vat) });
  if (document.taxInclusiveAmount !== null) rows.push({ label: 'Total con impuestos', value: money(document.taxInclusiveAmount) });
  // Without these rows a discount, a charge or an advance payment leaves the total to pay unexplained.
  for (const { label, amount } of payableAdjustments(document)) rows.push({ label, value: money(amount) });
  rows.push({ label: 'Total a pagar', value: money(document.total), strong: true });
  // An advance the supplier reports but did not deduct (its total to pay includes it): told, not subtracted.
  if (leavesPrepaidUndeducted(document) && document.prepaidAmount !== null) rows.push({ label: 'Anticipos (no descontados)', value: money(document.prepaidAmount) });
  // A document in another currency: what it is in pesos at its own PaymentExchangeRate (as the API's cop_equivalents).
  const rate = rateToCop(document.currency, document.exchangeRate);
  if (rate !== null) rows.push({ label: 'Equivalente en pesos', value: formatMoney(toCop(document.total, rate), COP) });
  return rows;
}

const TOTALS_WIDTH = 230;
const TOTALS_LABEL_WIDTH = 92;

type LaidOutTotal = { label: string[]; value: string[]; style: TextStyle; height: number };

function layoutTotals(flow: PageFlow, document: UblDocument): LaidOutTotal[] {
  return totalRows(document).map((row) => {
    const style: TextStyle = row.strong ? { size: 10, bold: true } : { size: 8.5 };
    const font = row.strong ? flow.fonts.bold : flow.fonts.regular;
    const label = wrapText(row.label, font, style.size, TOTALS_LABEL_WIDTH - 6);
    const value = wrapText(row.value, font, style.size, TOTALS_WIDTH - TOTALS_LABEL_WIDTH - 6);
    return { label, value, style, height: Math.max(label.length, value.length) * lineHeight(style.size) + 6 };
  });
}

/** Draws the totals box with its top at `top` on the current page; returns its height. */
function drawTotals(flow: PageFlow, totals: LaidOutTotal[], top: number): number {
  const x = flow.right - TOTALS_WIDTH;
  let y = top;
  for (const row of totals) {
    if (row.style.bold) flow.page.drawRectangle({ x, y: y - row.height, width: TOTALS_WIDTH, height: row.height, color: SHADE });
    const lh = lineHeight(row.style.size);
    row.label.forEach((line, index) => drawLine(flow.page, flow.fonts, line, x + 4, y - 3 - index * lh - baselineOffset(row.style.size), row.style));
    row.value.forEach((line, index) =>
      drawLine(flow.page, flow.fonts, line, x + TOTALS_LABEL_WIDTH, y - 3 - index * lh - baselineOffset(row.style.size), row.style, 'right', TOTALS_WIDTH - TOTALS_LABEL_WIDTH - 4),
    );
    y -= row.height;
  }
  return top - y;
}

/**
 * A tax's rate and base: a percentage of a taxable amount, or, for a tax per unit (INC bolsas),
 * its amount per unit and how many units (its TaxableAmount is 0, which said nothing).
 */
function rateAndBase(tax: UblTax): [string, string] {
  if (tax.percent === null && tax.perUnitAmount !== undefined) {
    return [`${formatAmount(tax.perUnitAmount)} c/u`, tax.units ? `${formatQuantity(tax.units)} u` : '-'];
  }
  return [formatPercent(tax.percent), formatAmount(tax.taxableAmount)];
}

/** Tax breakdown table on the left, totals on the right, side by side when they fit on the page. */
export function drawTaxesAndTotals(flow: PageFlow, document: UblDocument): void {
  const totals = layoutTotals(flow, document);
  const totalsHeight = totals.reduce((sum, row) => sum + row.height, 0);
  const columns: Column[] = [
    { header: 'Impuesto', width: 96, align: 'left' },
    { header: 'Tarifa', width: 40, align: 'right' },
    { header: 'Base gravable', width: 80, align: 'right' },
    { header: 'Valor impuesto', width: 80, align: 'right' },
  ];
  // Withholdings (ReteFuente/ReteRenta, ReteIVA, ReteICA) follow the taxes: what the buyer
  // withholds is part of what the document says, though not of its PayableAmount.
  const rows = [...document.taxes, ...document.withholdings].map((tax) => [
    formatTaxScheme(tax.schemeId, tax.schemeName),
    ...rateAndBase(tax),
    formatAmount(tax.taxAmount),
  ]);
  const taxesHeight = rows.length > 0 ? tableHeight(flow, columns, rows) : 0;
  const titleHeight = 19;
  // Keep the title, the totals and (when it can fit on one page at all) the whole tax table together.
  const together = titleHeight + Math.max(totalsHeight, taxesHeight <= flow.usableHeight - titleHeight ? taxesHeight : 0);
  flow.ensure(together);
  const heading = document.withholdings.length > 0 ? 'IMPUESTOS, RETENCIONES Y TOTALES' : 'IMPUESTOS Y TOTALES';
  flow.sectionTitle(rows.length > 0 ? `${heading} (${document.currency.trim()})` : 'TOTALES', 0);

  const top = flow.y;
  const totalsPage = flow.page;
  drawTotals(flow, totals, top);
  if (rows.length > 0) drawTable(flow, columns, rows);
  const totalsBottom = top - totalsHeight;
  flow.y = flow.page === totalsPage ? Math.min(flow.y, totalsBottom) : flow.y;
  flow.y -= 12;
}

export function drawNotes(flow: PageFlow, document: UblDocument): void {
  const notes = document.notes.map((note) => printableText(note.trim())).filter((note) => note.length > 0);
  if (notes.length === 0) return;
  flow.sectionTitle('OBSERVACIONES', 12);
  notes.forEach((note, index) => flow.paragraph(note, { size: 8 }, index === 0 ? 0 : 4));
  flow.y -= 8;
}
