/**
 * The DIAN QR code, drawn as vector squares: the module matrix comes from the `qrcode`
 * package (error correction M) and every horizontal run of dark modules becomes one rectangle
 * of a single filled path, so the symbol is crisp at any zoom and has no seams between modules.
 */
import QRCode from 'qrcode';
import { rgb, type PDFPage } from 'pdf-lib';
import { dianDocumentSearchUrl, type DianEnvironment } from '../dian/catalogue';


/** Modules of white border the QR specification asks for around the symbol. */
export const QR_QUIET_ZONE = 4;

/**
 * The text the QR encodes: DIAN's document lookup for the CUFE/CUDE, in the catalogue of the
 * document's environment (production unless its ProfileExecutionID says testing).
 */
export function dianQrText(cufe: string, environment: DianEnvironment | null = null): string {
  return dianDocumentSearchUrl(environment ?? 'production', encodeURIComponent(cufe.trim()));
}

/** A horizontal run of `length` dark modules starting at (`row`, `col`); row 0 is the top. */
export type QrRun = { row: number; col: number; length: number };

export type QrSymbol = {
  /** Modules per side (21 for version 1, +4 per version). */
  size: number;
  version: number;
  runs: QrRun[];
  /** Number of dark modules (the sum of the runs' lengths). */
  darkModules: number;
};

/** The QR symbol for `text` as runs of dark modules, straight from `QRCode.create`. */
export function qrSymbol(text: string): QrSymbol {
  const code = QRCode.create(text, { errorCorrectionLevel: 'M' });
  const { size, data } = code.modules;
  const runs: QrRun[] = [];
  let darkModules = 0;
  for (let row = 0; row < size; row += 1) {
    let col = 0;
    while (col < size) {
      if (!data[row * size + col]) {
        col += 1;
        continue;
      }
      const start = col;
      while (col < size && data[row * size + col]) col += 1;
      runs.push({ row, col: start, length: col - start });
      darkModules += col - start;
    }
  }
  return { size, version: code.version, runs, darkModules };
}

export type QrPlacement = { x: number; y: number; size: number };

/**
 * Draws the QR for `text` in the square whose bottom-left corner is (`x`, `y`) and side is
 * `size` points, quiet zone included (the square is painted white first). Returns the symbol drawn.
 */
export function drawQr(page: PDFPage, text: string, placement: QrPlacement): QrSymbol {
  const symbol = qrSymbol(text);
  const { x, y, size } = placement;
  const module = size / (symbol.size + 2 * QR_QUIET_ZONE);
  page.drawRectangle({ x, y, width: size, height: size, color: rgb(1, 1, 1) });
  // SVG coordinates: y grows downwards from the top-left corner of the symbol.
  const path = symbol.runs
    .map((run) => `M${run.col} ${run.row}h${run.length}v1h${-run.length}z`)
    .join('');
  if (path) {
    const offset = QR_QUIET_ZONE * module;
    page.drawSvgPath(path, { x: x + offset, y: y + size - offset, scale: module, color: rgb(0, 0, 0) });
  }
  return symbol;
}
