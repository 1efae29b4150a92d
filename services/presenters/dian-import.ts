import { z } from 'zod';
import type { DianImportRow } from '../../db/repositories/dian-imports';
import { id } from './fields';

/** The Tax-authority import record, exactly the spec's fields (API bodies and webhook data). */
export const dianImportOut = z
  .object({
    id,
    status: z.enum(['PENDING', 'PROCESSING', 'DONE', 'ERROR']),
    source: z.enum(['dian_web_service', 'dian_export_file']),
    document_type: z.enum(['invoice', 'credit_note', 'all']),
    begin_date: z.string().meta({ format: 'date' }),
    end_date: z.string().meta({ format: 'date' }),
    found_count: z.int().min(0),
    electronic_invoices_count: z.int().min(0),
    credit_notes_count: z.int().min(0),
    skipped_count: z.int().min(0),
  })
  .meta({ id: 'DianImport' });

export type DianImportOut = z.infer<typeof dianImportOut>;

export function presentDianImport(row: DianImportRow): DianImportOut {
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
