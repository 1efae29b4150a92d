import { z } from 'zod';
import type { ExportRow } from '../../db/repositories/exports';
import { documentEntry } from '../../domain/documents/document-entry';
import { documentEntryOut, id } from './fields';

/** The spec's Export record (payload of export.succeeded / export.failed, and the body of the export endpoints). */
export const exportOut = z
  .object({
    id,
    integration: z.string(),
    export_kind: z.string(),
    status: z.enum(['pending', 'succeeded', 'failed']),
    document: documentEntryOut,
    external_reference: z.object({ id: z.string(), number: z.string(), name: z.string().nullable() }).nullable(),
    completed_at: z.string().nullable().meta({ description: 'ISO 8601 with microseconds and UTC offset, e.g. 2026-11-22T10:00:00.123456+00:00; null while pending.' }),
    error: z.object({ message: z.string(), code: z.string() }).optional().meta({ description: 'Only when status is failed. Codes in docs/exports.md.' }),
  })
  .meta({ id: 'ExportRecord' });

export type ExportRecord = z.infer<typeof exportOut>;

/**
 * The spec's Export record. completed_at keeps microseconds and a UTC offset; error only when failed.
 */
export function presentExport(row: ExportRow): ExportRecord {
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
