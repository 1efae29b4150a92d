import type { ImportedDocumentRef, UploadedFileRow } from '../../db/repositories/uploaded-files';

/**
 * The spec's Uploaded file record (also the data of document.imported / document.import_failed):
 * id, status, type, file_name, dian_importation_id, documents [{kind, id, cufe}], plus
 * skipped documents, the error of a failed import, and timestamps.
 */
export function presentUploadedFile(row: UploadedFileRow, documents: ImportedDocumentRef[]) {
  return {
    id: row.id,
    status: row.status,
    type: row.type,
    file_name: row.file_name,
    dian_importation_id: row.dian_importation_id,
    documents,
    skipped: row.skipped,
    error: row.status === 'ERROR' ? { code: row.error_code, message: row.error_message } : null,
    content_type: row.content_type,
    size: row.size,
    created_at: row.created_at.toISOString(),
    processed_at: row.processed_at ? row.processed_at.toISOString() : null,
  };
}

export type UploadedFileRecord = ReturnType<typeof presentUploadedFile>;
