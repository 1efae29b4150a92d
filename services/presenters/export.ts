import type { ExportRow } from '../../db/repositories/exports';
import { documentEntry } from '../../domain/documents/document-entry';

/**
 * The spec's Export record (payload of export.succeeded / export.failed, and the body of the
 * export endpoints). completed_at keeps microseconds and a UTC offset; error only when failed.
 */
export function presentExport(row: ExportRow) {
  return {
    id: row.id,
    integration: row.integration,
    export_kind: row.export_kind,
    status: row.status,
    document: documentEntry({ ...row, id: row.document_id, cufe: row.document_cufe }),
    external_reference:
      row.status === 'succeeded' && row.external_id !== null
        ? { id: row.external_id, number: row.external_number ?? '', name: row.external_name }
        : null,
    completed_at: row.completed_at_text,
    ...(row.status === 'failed' ? { error: { message: row.error_message ?? '', code: row.error_code ?? 'export_failed' } } : {}),
  };
}

export type ExportRecord = ReturnType<typeof presentExport>;
