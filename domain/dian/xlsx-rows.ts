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

export function rowsFromXlsx(bytes: Buffer): string[][] {
  const { xmls } = readZipSafely(bytes);
  const sheet = xmls.filter((part) => /^xl\/worksheets\/sheet\d+\.xml$/.test(part.name)).sort((a, b) => sheetNumber(a.name) - sheetNumber(b.name))[0];
  if (!sheet) throw new XlsxError('The file is not an XLSX workbook (no worksheet found).');
  const sharedPart = xmls.find((part) => part.name === 'xl/sharedStrings.xml');
  const shared = sharedPart ? sharedStrings(sharedPart.data) : [];
  if (sheet.data.includes('<!DOCTYPE')) throw new XlsxError('The worksheet declares a DOCTYPE.');
  const worksheet = parser.parse(sheet.data.toString('utf8'))?.worksheet;
  const rows: { c?: Cell[] }[] = worksheet?.sheetData?.row ?? [];
  return rows.map((row) => {
    const cells: string[] = [];
    (row.c ?? []).forEach((cell, position) => {
      const column = cell.r ? columnIndex(cell.r) : position;
      cells[column] = cellText(cell, shared);
    });
    return Array.from(cells, (value) => value ?? '');
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

/** 'C7' → 2 (zero-based column of an A1 reference). */
function columnIndex(reference: string): number {
  const letters = /^[A-Z]+/.exec(reference.toUpperCase())?.[0] ?? 'A';
  return [...letters].reduce((sum, letter) => sum * 26 + (letter.charCodeAt(0) - 64), 0) - 1;
}
