import type { DianImportRow } from '../../db/repositories/dian-imports';

/** The Tax-authority import record, exactly the spec's fields (API bodies and webhook data). */
export function presentDianImport(row: DianImportRow) {
  return {
    id: row.id,
    status: row.status,
    source: row.source,
    document_type: row.document_type,
    begin_date: row.begin_date,
    end_date: row.end_date,
    found_count: row.found_count,
    electronic_invoices_count: row.electronic_invoices_count,
    credit_notes_count: row.credit_notes_count,
    skipped_count: row.skipped_count,
  };
}
