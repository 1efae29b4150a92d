import test from 'ava';
import AdmZip from 'adm-zip';
import { cufesFromReceivedExport, receivedTypeMatches, MAX_REQUESTED_CUFES, ReceivedExportError } from '../../domain/dian/received-export';

const A = 'a'.repeat(96);
const B = 'b'.repeat(96);
const C = 'c'.repeat(96);
const filter = { documentType: 'all' as const, beginDate: '2026-11-01', endDate: '2026-11-30' };

test('CSV: the CUFE column, filtered by type and issue date; duplicates once', (t) => {
  const csv = [
    'Tipo de documento;CUFE/CUDE;Folio;Fecha Emisión',
    `Factura electrónica;${A};FE1;05-11-2026`,
    `Nota crédito electrónica;${B};NC1;2026-11-06`,
    `Factura electrónica;${C};FE2;2026-10-30`,
    `Factura electrónica;${A.toUpperCase()};FE1;05-11-2026`,
  ].join('\r\n');
  t.deepEqual(cufesFromReceivedExport(Buffer.from(`\uFEFF${csv}`), filter), [A, B]);
  t.deepEqual(cufesFromReceivedExport(Buffer.from(csv), { ...filter, documentType: 'invoice' }), [A]);
  t.deepEqual(cufesFromReceivedExport(Buffer.from(csv), { ...filter, documentType: 'credit_note' }), [B]);
});

test("the portal's own type names: 'Nota de crédito electrónica' is a credit note; events and debit notes are no invoices", (t) => {
  // As DIAN's "documentos recibidos" export writes them (a script processing that export compares
  // 'Factura electrónica', 'Nota de crédito electrónica' and 'Application response').
  const D = 'd'.repeat(96);
  const csv = [
    'Tipo de documento;CUFE/CUDE;Folio;Prefijo;Fecha Emisión',
    `Factura electrónica;${A};1001;FE;05-11-2026`,
    `Nota de crédito electrónica;${B};12;NC;06-11-2026`,
    `Application response;${C};7;AR;06-11-2026`,
    `Nota de débito electrónica;${D};3;ND;06-11-2026`,
  ].join('\r\n');
  t.deepEqual(cufesFromReceivedExport(Buffer.from(csv), filter), [A, B]);
  t.deepEqual(cufesFromReceivedExport(Buffer.from(csv), { ...filter, documentType: 'credit_note' }), [B]);
  t.deepEqual(cufesFromReceivedExport(Buffer.from(csv), { ...filter, documentType: 'invoice' }), [A]);
  // A spreadsheet cell with a non-breaking or doubled space is the same name.
  t.true(receivedTypeMatches('Nota\u00a0de  crédito electrónica', 'credit_note'));
});

/**
 * A minimal XLSX as Excel writes it: shared strings for text, the first worksheet for cells; a
 * number is a numeric cell (a date cell holds its serial number, styled as a date).
 * `columns` names each cell's column (default A, B, C …).
 */
function xlsx(rows: (string | number)[][], columns: (row: number, cell: number) => string = (_row, cell) => String.fromCharCode(65 + cell)): Buffer {
  const strings: string[] = [];
  const index = (value: string) => (strings.includes(value) ? strings.indexOf(value) : strings.push(value) - 1);
  const cell = (value: string | number, reference: string) =>
    typeof value === 'number' ? `<c r="${reference}" s="1"><v>${value}</v></c>` : `<c r="${reference}" t="s"><v>${index(value)}</v></c>`;
  const sheetRows = rows.map((row, r) => `<row r="${r + 1}">${row.map((value, c) => cell(value, `${columns(r, c)}${r + 1}`)).join('')}</row>`).join('');
  const zip = new AdmZip();
  zip.addFile('[Content_Types].xml', Buffer.from('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'));
  zip.addFile('xl/worksheets/sheet1.xml', Buffer.from(`<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>${sheetRows}</sheetData></worksheet>`));
  zip.addFile('xl/sharedStrings.xml', Buffer.from(`<?xml version="1.0"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">${strings.map((s) => `<si><t xml:space="preserve">${s}</t></si>`).join('')}</sst>`));
  return zip.toBuffer();
}

test('XLSX: the same columns are read from the first worksheet', (t) => {
  const file = xlsx([
    ['Tipo de documento', 'CUFE/CUDE', 'Fecha Emisión'],
    ['Factura electrónica', A, '2026-11-05'],
    ['Nota crédito electrónica', B, '2026-11-06'],
    ['Factura electrónica', C, '2026-12-01'],
  ]);
  t.deepEqual(cufesFromReceivedExport(file, filter), [A, B]);
});

test('XLSX: an issue date typed as a date (an Excel serial number) filters like one written as text', (t) => {
  const file = xlsx([
    ['Tipo de documento', 'CUFE/CUDE', 'Fecha Emisión'],
    ['Factura electrónica', A, 46331], // 2026-11-05
    ['Nota crédito electrónica', B, 46332.4375], // 2026-11-06 10:30
    ['Factura electrónica', C, 46357], // 2026-12-01: outside the range (imported before 2026-11-25)
  ]);
  t.deepEqual(cufesFromReceivedExport(file, filter), [A, B]);
  t.deepEqual(cufesFromReceivedExport(file, { ...filter, beginDate: '2026-11-06', endDate: '2026-12-01' }), [B, C]);
  t.deepEqual(cufesFromReceivedExport(file, { ...filter, beginDate: '2024-01-01', endDate: '2024-01-01' }), []);
});

test('a file without a CUFE column, or a broken one, is refused with a clear error', (t) => {
  t.throws(() => cufesFromReceivedExport(Buffer.from('Folio;Fecha\nFE1;2026-11-05'), filter), { instanceOf: ReceivedExportError, message: /CUFE/ });
  t.throws(() => cufesFromReceivedExport(Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(40, 1)]), filter), { instanceOf: ReceivedExportError, message: /XLSX/ });
  t.throws(() => cufesFromReceivedExport(xlsx([['Folio'], ['FE1']]), filter), { instanceOf: ReceivedExportError, message: /CUFE/ });
});

test('XLSX cells may skip columns: the CUFE column is found wherever its header sits', (t) => {
  // Header in A and XFD (the last column), data in the same columns: rows stay sparse.
  const file = xlsx(
    [
      ['Folio', 'CUFE/CUDE'],
      ['FE1', A],
    ],
    (_row, cell) => (cell === 0 ? 'A' : 'XFD'),
  );
  t.deepEqual(cufesFromReceivedExport(file, filter), [A]);
});

test('an XLSX cell beyond column XFD (a 589-byte file that once held the API 5 s and 1 GB) is refused at once', (t) => {
  const file = xlsx(
    [
      ['CUFE/CUDE', 'x'],
      [A, 'y'],
      [B, 'z'],
    ],
    (_row, cell) => (cell === 0 ? 'A' : 'AQSWTU'),
  );
  t.true(file.length < 2048);
  const started = process.hrtime.bigint();
  t.throws(() => cufesFromReceivedExport(file, filter), { instanceOf: ReceivedExportError, message: /beyond column XFD/ });
  t.true(Number(process.hrtime.bigint() - started) / 1e6 < 500, 'refused before building anything that wide');
  t.throws(() => cufesFromReceivedExport(xlsx([['CUFE/CUDE', 'x']], () => 'XFE'), filter), { instanceOf: ReceivedExportError, message: /beyond column XFD/ });
});

test(`a file listing more than ${MAX_REQUESTED_CUFES} documents in the range is refused: split the range`, (t) => {
  const cufe = (n: number) => n.toString(16).padStart(96, '0');
  const lines = (count: number) => ['CUFE/CUDE', ...Array.from({ length: count }, (_, n) => cufe(n))].join('\n');
  t.is(cufesFromReceivedExport(Buffer.from(lines(MAX_REQUESTED_CUFES)), filter).length, MAX_REQUESTED_CUFES);
  t.throws(() => cufesFromReceivedExport(Buffer.from(lines(MAX_REQUESTED_CUFES + 1)), filter), { instanceOf: ReceivedExportError, message: /more than 50000 documents .* shorter date ranges/ });
});
