import { XMLParser } from 'fast-xml-parser';
import { readZipSafely } from '../files/zip';

/**
 * The cell texts of the first worksheet of an XLSX file, row by row (an XLSX is a ZIP of XML
 * parts: xl/worksheets/sheetN.xml holds the cells, xl/sharedStrings.xml the strings they point
 * to). Enough for DIAN's "documentos recibidos" export; formulas and styles are ignored.
 */
export class XlsxError extends Error {}

type Cell = { r?: string; t?: string; v?: unknown; is?: { t?: unknown } };

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  removeNSPrefix: true,
  parseTagValue: false,
  processEntities: true,
  isArray: (name, _path, _leaf, isAttribute) => !isAttribute && ['row', 'c', 'si', 'r'].includes(name),
});

/** Excel's own bounds (XFD1048576): a reference beyond them is no workbook Excel or DIAN wrote. */
export const XLSX_MAX_COLUMNS = 16_384;
export const XLSX_MAX_ROWS = 1_048_576;

/**
 * The rows' cells by column; a row is sparse (only its written cells are set; read a missing
 * one as ''), so a cell far to the right costs one entry, not a row that wide.
 */
export function rowsFromXlsx(bytes: Buffer): string[][] {
  const { xmls } = readZipSafely(bytes);
  const sheet = xmls.filter((part) => /^xl\/worksheets\/sheet\d+\.xml$/.test(part.name)).sort((a, b) => sheetNumber(a.name) - sheetNumber(b.name))[0];
  if (!sheet) throw new XlsxError('The file is not an XLSX workbook (no worksheet found).');
  const sharedPart = xmls.find((part) => part.name === 'xl/sharedStrings.xml');
  const shared = sharedPart ? sharedStrings(sharedPart.data) : [];
  if (sheet.data.includes('<!DOCTYPE')) throw new XlsxError('The worksheet declares a DOCTYPE.');
  const worksheet = parser.parse(sheet.data.toString('utf8'))?.worksheet;
  const rows: { c?: Cell[] }[] = worksheet?.sheetData?.row ?? [];
  if (rows.length > XLSX_MAX_ROWS) throw new XlsxError(`The worksheet has ${rows.length} rows; a worksheet has at most ${XLSX_MAX_ROWS}.`);
  return rows.map((row) => {
    const cells: string[] = [];
    (row.c ?? []).forEach((cell, position) => {
      const column = cell.r ? columnIndex(cell.r) : position;
      if (column >= XLSX_MAX_COLUMNS) throw new XlsxError(`The cell ${String(cell.r ?? position).slice(0, 20)} lies beyond column XFD, the last one a worksheet has.`);
      cells[column] = cellText(cell, shared);
    });
    return cells;
  });
}

function sheetNumber(name: string): number {
  return Number(/sheet(\d+)\.xml$/.exec(name)?.[1] ?? 0);
}

function sharedStrings(data: Buffer): string[] {
  if (data.includes('<!DOCTYPE')) throw new XlsxError('The shared strings declare a DOCTYPE.');
  const items: { t?: unknown; r?: { t?: unknown }[] }[] = parser.parse(data.toString('utf8'))?.sst?.si ?? [];
  return items.map((item) => (item.t !== undefined ? text(item.t) : (item.r ?? []).map((run) => text(run.t)).join('')));
}

function cellText(cell: Cell, shared: string[]): string {
  if (cell.t === 's') return shared[Number(text(cell.v))] ?? '';
  if (cell.t === 'inlineStr') return text(cell.is?.t);
  return text(cell.v);
}

/** '#text' when the element had attributes (xml:space="preserve"), else the value itself. */
function text(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return String((value as Record<string, unknown>)['#text'] ?? '');
  return String(value);
}

/** 'C7' → 2 (zero-based column of an A1 reference); Infinity past four letters (XFD is three). */
function columnIndex(reference: string): number {
  const letters = /^[A-Z]+/.exec(reference.toUpperCase())?.[0] ?? 'A';
  if (letters.length > 4) return Infinity;
  return [...letters].reduce((sum, letter) => sum * 26 + (letter.charCodeAt(0) - 64), 0) - 1;
}
