import type { DocumentRow } from '../../../db/repositories/documents';
import { filesObject } from '../../../domain/documents/files-object';
import { originalOf } from '../../../services/link-document-files';

const ZERO = '0.00';

/** id_number is an integer in the spec; identifiers that are not all digits (foreign ids) come out null here and in full on the contact. */
function integerIdNumber(value: string | null): number | null {
  if (value === null || !/^[0-9]{1,15}$/.test(value)) return null;
  return Number(value);
}

/** The spec's Invoice object; the other kinds share it, with referenced_document on notes. */
export function presentDocument(row: DocumentRow) {
  const isNote = row.document_type === 'credit_note' || row.document_type === 'debit_note';
  return {
    id: row.id,
    number: row.number,
    cufe: row.cufe,
    kind: row.kind,
    issued_at: row.issued_at.toISOString(),
    due_date: row.due_date,
    contact: row.contact_id === null ? null : { id: row.contact_id, id_number: integerIdNumber(row.contact_id_number), name: row.contact_name },
    sub_total: row.sub_total ?? row.total ?? ZERO,
    vat: row.vat ?? ZERO,
    total: row.total ?? ZERO,
    currency: row.currency,
    synced: row.synced,
    synced_at: row.synced_at ? row.synced_at.toISOString() : null,
    export: row.export_integration
      ? {
          integration: row.export_integration,
          external_id: row.export_external_id,
          external_number: row.export_external_number,
          external_name: row.export_external_name,
          exported_at: row.exported_at ? row.exported_at.toISOString() : null,
          marked_manually: row.export_marked_manually ?? false,
        }
      : null,
    imported_file_id: row.imported_file_id,
    files: filesObject(row.document_type, originalOf(row)),
    ...(isNote
      ? { referenced_document: row.referenced_document_number ? { number: row.referenced_document_number, cufe: row.referenced_document_cufe } : null }
      : {}),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
