import test from 'ava';
import { filesObject, type OriginalFile } from '../../domain/documents/files-object';
import type { DocumentType } from '../../domain/documents/collections';

const original = (contentType: string, zipPdfEntry: string | null = null): OriginalFile => ({
  fileName: 'f', extension: 'x', contentType, size: 10, zipPdfEntry,
});
const xml = original('application/xml');
const zipWithPdf = original('application/zip', 'f.pdf');
const zipWithoutPdf = original('application/zip');
const pdf = original('application/pdf');

// [kind, original, expected pdf.status, expected pdf.source] — the spec's table, row by row.
const MATRIX: [DocumentType, OriginalFile, string, string | null][] = [
  ['electronic_invoice', xml, 'on_demand', 'service'],
  ['electronic_invoice', zipWithPdf, 'on_demand', 'service'],
  ['electronic_invoice', zipWithoutPdf, 'on_demand', 'service'],
  ['electronic_invoice', pdf, 'available', 'original'],
  ['electronic_invoice', null, 'none', null],
  ['credit_note', xml, 'none', null],
  ['credit_note', zipWithPdf, 'on_demand', 'service'],
  ['credit_note', zipWithoutPdf, 'none', null],
  ['credit_note', pdf, 'available', 'original'],
  ['debit_note', zipWithPdf, 'on_demand', 'service'],
  ['debit_note', xml, 'none', null],
  ['payment_claim_account', pdf, 'available', 'original'],
  ['payment_claim_account', xml, 'none', null],
  ['payment_claim_account', zipWithPdf, 'none', null],
  ['payment_claim_account', null, 'none', null],
  ['foreign_invoice', pdf, 'available', 'original'],
  ['foreign_invoice', xml, 'none', null],
  ['foreign_invoice', null, 'none', null],
];

for (const [type, file, status, source] of MATRIX) {
  test(`${type} with ${file ? `${file.contentType}${file.zipPdfEntry ? ' holding a PDF' : ''}` : 'no original'} → pdf ${status}`, (t) => {
    const files = filesObject(type, file);
    t.deepEqual(files.pdf, { status, source });
    if (file) {
      t.deepEqual(files.original, { available: true, file_name: 'f', extension: 'x', content_type: file.contentType, size: 10 });
    } else {
      t.deepEqual(files.original, { available: false });
    }
  });
}
