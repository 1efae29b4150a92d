/**
 * Reads DIAN's "documentos recibidos" export (the CSV or XLSX the DIAN portal produces: one row per
 * received document, with columns such as "Tipo de documento", "CUFE/CUDE", "Fecha Emisión").
 * Only the CUFE column is required; the type and issue-date columns filter when present.
 * Pure: no I/O.
 */
import { parse } from 'csv-parse/sync';
import { rowsFromXlsx } from './xlsx-rows';

export class ReceivedExportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ReceivedExportError';
  }
}

export type ReceivedExportFilter = { documentType: 'invoice' | 'credit_note' | 'all'; beginDate: string; endDate: string };

const normalise = (value: string) =>
  // Spaces collapsed (a non-breaking or doubled space in a spreadsheet cell is still a space).
  value.normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/^\uFEFF/, '').replace(/\s+/g, ' ').trim().toLowerCase();

function delimiterOf(headerLine: string): string {
  const counts = [';', ',', '\t'].map((candidate) => [candidate, headerLine.split(candidate).length] as const);
  return counts.sort((a, b) => b[1] - a[1])[0]![0];
}

/**
 * Day 0 of Excel's serial dates. Serials from 61 (1900-03-01) on count days from here; the
 * earlier ones are off by Excel's fictitious 1900-02-29 and are no issue date of a DIAN document.
 */
const EXCEL_EPOCH = Date.UTC(1899, 11, 30);
const DAY_MS = 86_400_000;
const FIRST_EXACT_SERIAL = 61;

/**
 * 'YYYY-MM-DD' from 'YYYY-MM-DD…', 'DD-MM-YYYY' / 'DD/MM/YYYY', or an Excel serial date (a cell
 * typed as a date holds the day number, e.g. 46331 for 2026-11-05, its fraction the time of day);
 * null when unreadable.
 */
function isoDate(value: string): string | null {
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(value);
  if (iso) return `${iso[1]}-${iso[2]}-${iso[3]}`;
  const local = /^(\d{2})[-/](\d{2})[-/](\d{4})/.exec(value);
  if (local) return `${local[3]}-${local[2]}-${local[1]}`;
  const serial = /^(\d{2,6})(\.\d+)?$/.exec(value);
  if (serial && Number(serial[1]) >= FIRST_EXACT_SERIAL) return new Date(EXCEL_EPOCH + Number(serial[1]) * DAY_MS).toISOString().slice(0, 10);
  return null;
}

/** DIAN's type codes of a received invoice: 01 sale, 02 export, 03 and 04 contingency (all take the buyer's events). */
const INVOICE_TYPE_CODES = new Set(['01', '02', '03', '04']);

/**
 * Whether a received document's type, as DIAN writes it (the export's "Tipo de documento" name,
 * or a type code as the simulator's listing gives it), is what a run asked for: `invoice` is every
 * kind of invoice, `credit_note` the credit notes, `all` both (what a run counts); debit notes and
 * anything else are not imported by a run. One rule for the uploaded export and the listing, so
 * the same request finds the same documents whichever source it reads.
 */
export function receivedTypeMatches(type: string, wanted: ReceivedExportFilter['documentType']): boolean {
  const value = normalise(type);
  // The portal writes "Nota de crédito electrónica" (before 2026-11-25 only "nota crédito" was
  // recognised, so every credit note of a real export was skipped as another kind).
  const isCreditNote = /\bnota (de )?credito\b/.test(value) || value === '91';
  const isInvoice = !isCreditNote && (value.includes('factura') || INVOICE_TYPE_CODES.has(value));
  if (wanted === 'invoice') return isInvoice;
  if (wanted === 'credit_note') return isCreditNote;
  return isInvoice || isCreditNote;
}

/** The distinct CUFEs/CUDEs (lower-cased) of the export that match the filter, in file order. */
export function cufesFromReceivedExport(bytes: Buffer, filter: ReceivedExportFilter): string[] {
  return cufesFromRows(isZip(bytes) ? xlsxRows(bytes) : csvRows(bytes), filter);
}

function isZip(bytes: Buffer): boolean {
  return bytes.subarray(0, 4).toString('latin1') === 'PK\x03\x04';
}

function xlsxRows(bytes: Buffer): string[][] {
  try {
    return rowsFromXlsx(bytes);
  } catch (error) {
    throw new ReceivedExportError(`The file is not a readable XLSX: ${(error as Error).message}`);
  }
}

function csvRows(bytes: Buffer): string[][] {
  const text = bytes.toString('utf8');
  const headerLine = text.split(/\r?\n/, 1)[0] ?? '';
  try {
    return parse(text, { delimiter: delimiterOf(headerLine), relax_column_count: true, skip_empty_lines: true, bom: true, trim: true });
  } catch (error) {
    throw new ReceivedExportError(`The file is not a readable CSV: ${(error as Error).message}`);
  }
}

/**
 * CUFEs one run takes from a file: a run fetches each from DIAN (about 60 a second at best,
 * docs/performance.md), so 50,000 is most of an hour; a longer export is split by date range.
 */
export const MAX_REQUESTED_CUFES = 50_000;

function cufesFromRows(rows: string[][], filter: ReceivedExportFilter): string[] {
  // XLSX rows are sparse (xlsx-rows.ts): a header cell that was never written reads ''.
  const header = Array.from(rows[0] ?? [], (name) => normalise(name ?? ''));
  const cufeColumn = header.findIndex((name) => name.includes('cufe') || name.includes('cude'));
  if (cufeColumn < 0) throw new ReceivedExportError('The file has no CUFE/CUDE column; export "documentos recibidos" from the DIAN portal as CSV or XLSX.');
  const typeColumn = header.findIndex((name) => name.startsWith('tipo de documento') || name === 'tipo');
  const dateColumn = header.findIndex((name) => name.startsWith('fecha emision') || name.startsWith('fecha de emision'));
  const cufes = new Set<string>();
  for (const row of rows.slice(1)) {
    const cufe = (row[cufeColumn] ?? '').trim().toLowerCase();
    if (!/^[0-9a-f]{40,128}$/.test(cufe)) continue;
    if (typeColumn >= 0 && !receivedTypeMatches(row[typeColumn] ?? '', filter.documentType)) continue;
    const date = dateColumn >= 0 ? isoDate((row[dateColumn] ?? '').trim()) : null;
    if (date && (date < filter.beginDate || date > filter.endDate)) continue;
    cufes.add(cufe);
    if (cufes.size > MAX_REQUESTED_CUFES) {
      throw new ReceivedExportError(`The file lists more than ${MAX_REQUESTED_CUFES} documents in the range; import it in shorter date ranges.`);
    }
  }
  return [...cufes];
}
