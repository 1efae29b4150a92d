/**
 * Page geometry, fonts, a top-down cursor that adds pages as content flows, and text wrapping
 * measured with the real font metrics. All text is made WinAnsi-safe here before it is measured
 * or drawn, so no caller can make pdf-lib throw on an unencodable character.
 */
import { PDFDocument, PDFFont, PDFPage, StandardFonts, rgb, type Color } from 'pdf-lib';
import { toWinAnsi } from './text-safety';

/** US Letter ("tamaño carta", the usual paper size in Colombia), portrait, in points. */
export const PAGE_WIDTH = 612;
export const PAGE_HEIGHT = 792;
export const MARGIN = 36;
/** Space reserved at the bottom of every page for the footer (page numbers). */
export const FOOTER_HEIGHT = 22;

export const INK = rgb(0.12, 0.12, 0.14);
export const MUTED = rgb(0.4, 0.4, 0.44);
export const RULE = rgb(0.78, 0.78, 0.8);
export const ACCENT = rgb(0.13, 0.27, 0.45);
export const SHADE = rgb(0.93, 0.94, 0.96);
export const WHITE = rgb(1, 1, 1);

export type Fonts = { regular: PDFFont; bold: PDFFont };

export async function embedFonts(pdf: PDFDocument): Promise<Fonts> {
  const [regular, bold] = await Promise.all([
    pdf.embedFont(StandardFonts.Helvetica),
    pdf.embedFont(StandardFonts.HelveticaBold),
  ]);
  return { regular, bold };
}

export type Align = 'left' | 'right' | 'center';

export type TextStyle = { size: number; bold?: boolean; color?: Color };

export function lineHeight(size: number): number {
  return size * 1.25;
}

/** Distance from the top of a line box to its baseline (Helvetica's ascent is about 0.72 em). */
export function baselineOffset(size: number): number {
  return size * 0.95;
}

/** Most characters, and line breaks, of one free text (a line's description, a note) the PDF prints. */
export const PRINTED_TEXT_CHARACTERS = 10_000;
export const PRINTED_TEXT_LINE_BREAKS = 200;

/**
 * A free text as the PDF prints it: whole up to 10,000 characters and 200 line breaks (a real
 * description or note is far shorter), else its beginning and a note of how much was left out.
 * The XML has no such bound (a text node may be as large as the document): an invoice whose line
 * description held 3 million line breaks drew a table row of 3 million lines, never finished
 * within the CPU pool's budgets, and every GET …/pdf of it spent 8–20 s of the API's only pool
 * thread before answering 404 file_not_available. The original XML keeps the whole text.
 */
export function printableText(text: string): string {
  let end = Math.min(text.length, PRINTED_TEXT_CHARACTERS);
  let breaks = 0;
  for (let index = 0; index < end; index += 1) {
    const code = text.charCodeAt(index);
    // A line break as wrapText reads one: \n, or \r not followed by \n.
    const lineBreak = code === 0x0a || (code === 0x0d && text.charCodeAt(index + 1) !== 0x0a);
    if (lineBreak && ++breaks > PRINTED_TEXT_LINE_BREAKS) end = index;
  }
  if (end >= text.length) return text;
  return `${text.slice(0, end)}\n[… ${text.length - end} caracteres más, en el XML original]`;
}

/**
 * Splits `text` into lines no wider than `maxWidth`: explicit line breaks are kept, spaces are
 * collapsed, lines break between words, and a word wider than the column (a CUFE, a URL, an
 * unbroken string) is cut between characters. Always returns at least one line.
 */
export function wrapText(text: string, font: PDFFont, size: number, maxWidth: number): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split(/\r\n|\r|\n/)) {
    const words = toWinAnsi(paragraph).split(' ').filter((word) => word.length > 0);
    let line = '';
    for (const word of words) {
      const candidate = line ? `${line} ${word}` : word;
      if (font.widthOfTextAtSize(candidate, size) <= maxWidth) {
        line = candidate;
        continue;
      }
      if (line) lines.push(line);
      const pieces = breakWord(word, font, size, maxWidth);
      line = pieces.pop()!;
      lines.push(...pieces);
    }
    lines.push(line);
  }
  while (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function breakWord(word: string, font: PDFFont, size: number, maxWidth: number): string[] {
  if (font.widthOfTextAtSize(word, size) <= maxWidth) return [word];
  const pieces: string[] = [];
  let piece = '';
  let width = 0;
  for (const character of word) {
    const characterWidth = font.widthOfTextAtSize(character, size);
    // Summed glyph widths ignore kerning; the measured width of the piece settles close calls.
    if (piece && width + characterWidth > maxWidth && font.widthOfTextAtSize(piece + character, size) > maxWidth) {
      pieces.push(piece);
      piece = '';
      width = 0;
    }
    piece += character;
    width += characterWidth;
  }
  pieces.push(piece);
  return pieces;
}

/** One line that fits `maxWidth`, shortened with '…' when it does not. */
export function fitLine(text: string, font: PDFFont, size: number, maxWidth: number): string {
  const clean = toWinAnsi(text).replace(/ {2,}/g, ' ').trim();
  if (font.widthOfTextAtSize(clean, size) <= maxWidth) return clean;
  // Longest prefix that fits with the ellipsis (binary search: the text may be very long).
  let low = 0;
  let high = clean.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (font.widthOfTextAtSize(`${clean.slice(0, middle)}…`, size) <= maxWidth) low = middle;
    else high = middle - 1;
  }
  return `${clean.slice(0, low)}…`;
}

/** Draws one already-fitted line; `x` is the left edge of a box of `width` for the alignment. */
export function drawLine(
  page: PDFPage,
  fonts: Fonts,
  text: string,
  x: number,
  baseline: number,
  style: TextStyle,
  align: Align = 'left',
  width = 0,
): void {
  const font = style.bold ? fonts.bold : fonts.regular;
  const safe = toWinAnsi(text);
  if (!safe) return;
  const textWidth = font.widthOfTextAtSize(safe, style.size);
  const left = align === 'right' ? x + width - textWidth : align === 'center' ? x + (width - textWidth) / 2 : x;
  page.drawText(safe, { x: left, y: baseline, size: style.size, font, color: style.color ?? INK });
}

/** A run of wrapped lines sharing one style, with optional space above it. */
export type Block = { lines: string[]; style: TextStyle; gapBefore: number };

/** `maxLines` caps fields that must stay in a fixed-height area (the first-page header). */
export type BlockInput = { text: string; style: TextStyle; gapBefore?: number; maxLines?: number };

export function layoutBlocks(fonts: Fonts, inputs: BlockInput[], width: number): Block[] {
  return inputs.map((input) => {
    const font = input.style.bold ? fonts.bold : fonts.regular;
    let lines = wrapText(input.text, font, input.style.size, width);
    if (input.maxLines !== undefined && lines.length > input.maxLines) {
      lines = lines.slice(0, input.maxLines);
      lines[lines.length - 1] = fitLine(`${lines[lines.length - 1]}…`, font, input.style.size, width);
    }
    return { lines, style: input.style, gapBefore: input.gapBefore ?? 0 };
  });
}

export function blocksHeight(blocks: Block[]): number {
  return blocks.reduce((sum, block) => sum + block.gapBefore + block.lines.length * lineHeight(block.style.size), 0);
}

/** Draws blocks from `top` downwards in a column; returns the height used. */
export function drawBlocks(page: PDFPage, fonts: Fonts, blocks: Block[], x: number, top: number, width: number, align: Align = 'left'): number {
  let y = top;
  for (const block of blocks) {
    y -= block.gapBefore;
    for (const line of block.lines) {
      drawLine(page, fonts, line, x, y - baselineOffset(block.style.size), block.style, align, width);
      y -= lineHeight(block.style.size);
    }
  }
  return top - y;
}

/**
 * The flowing cursor: `y` is where the next content starts (top-down); `ensure` moves to a new
 * page when the next piece does not fit above the footer. `onNewPage` draws what every page
 * after the first starts with (a continuation header).
 */
export class PageFlow {
  readonly pages: PDFPage[] = [];
  page!: PDFPage;
  y = 0;

  constructor(
    readonly pdf: PDFDocument,
    readonly fonts: Fonts,
    private readonly onNewPage: (flow: PageFlow) => void,
  ) {
    this.addPage();
  }

  readonly left = MARGIN;
  readonly right = PAGE_WIDTH - MARGIN;
  readonly width = PAGE_WIDTH - 2 * MARGIN;
  readonly bottom = MARGIN + FOOTER_HEIGHT;
  /** Height available on an empty continuation page (after its header), for "does it ever fit" checks. */
  readonly usableHeight = PAGE_HEIGHT - 2 * MARGIN - FOOTER_HEIGHT - 30;

  addPage(): void {
    this.page = this.pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
    this.pages.push(this.page);
    this.y = PAGE_HEIGHT - MARGIN;
    if (this.pages.length > 1) this.onNewPage(this);
  }

  available(): number {
    return this.y - this.bottom;
  }

  /** Starts a new page when `height` does not fit; returns whether it did. */
  ensure(height: number): boolean {
    if (height <= this.available()) return false;
    this.addPage();
    return true;
  }

  rule(gapAfter = 6, color: Color = RULE): void {
    this.page.drawLine({ start: { x: this.left, y: this.y }, end: { x: this.right, y: this.y }, thickness: 0.6, color });
    this.y -= gapAfter;
  }

  /** A section title on a shaded band, kept on the same page as `keepWith` points of what follows. */
  sectionTitle(title: string, keepWith = 30): void {
    const height = 15;
    this.ensure(height + keepWith);
    this.page.drawRectangle({ x: this.left, y: this.y - height, width: this.width, height, color: SHADE });
    drawLine(this.page, this.fonts, title, this.left + 5, this.y - 10.5, { size: 8.5, bold: true, color: ACCENT });
    this.y -= height + 4;
  }

  /** Wrapped paragraph over the full width, breaking pages between its lines. */
  paragraph(text: string, style: TextStyle, gapBefore = 0): void {
    const font = style.bold ? this.fonts.bold : this.fonts.regular;
    this.y -= gapBefore;
    for (const line of wrapText(text, font, style.size, this.width)) {
      this.ensure(lineHeight(style.size));
      drawLine(this.page, this.fonts, line, this.left, this.y - baselineOffset(style.size), style);
      this.y -= lineHeight(style.size);
    }
  }
}
