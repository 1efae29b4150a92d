import { z } from 'zod';
import type { ImportedDocumentRef, UploadedFileRow } from '../../db/repositories/uploaded-files';
import { documentEntryOut, id, nullableTimestamp, timestamp } from './fields';
import type { Repositories } from '../../db/repositories';

/**
 * The spec's Uploaded file record (also the data of document.imported / document.import_failed):
 * id, status, type, file_name, dian_importation_id, documents [{kind, id, cufe}], plus
 * skipped documents, the error of a failed import, and timestamps.
 */
export const uploadedFileOut = z
  .object({
    id,
    status: z.string().meta({ description: 'PENDING, PROCESSING, DONE or ERROR.', examples: ['PENDING', 'PROCESSING', 'DONE', 'ERROR'] }),
    type: z.enum(['API', 'UPLOAD', 'EMAIL', 'DIAN']),
    file_name: z.string(),
    dian_importation_id: id.nullable(),
    documents: z.array(documentEntryOut),
    skipped: z
      .array(z.object({ cufe: z.string(), existing_document_id: id, kind: z.string() }))
      .meta({ description: 'Documents not created because their CUFE was already stored.' }),
    error: z.object({ code: z.string().nullable(), message: z.string().nullable() }).nullable().meta({ description: 'When status is ERROR; codes in docs/ingestion.md.' }),
    content_type: z.string(),
    size: z.int().min(0),
    created_at: timestamp,
    processed_at: nullableTimestamp,
  })
  .meta({ id: 'UploadedFile' });

export type UploadedFileRecord = z.infer<typeof uploadedFileOut>;

export function presentUploadedFile(row: UploadedFileRow, documents: ImportedDocumentRef[]): UploadedFileRecord {
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

/** The record of one upload as events carry it, with its company (for publishing). */
export async function loadUploadedFileRecord(
  repositories: Pick<Repositories, 'uploadedFiles'>,
  fileId: number,
): Promise<UploadedFileRecord & { company_id: number }> {
  const file = await repositories.uploadedFiles.findById(fileId);
  if (!file) throw new Error(`uploaded file ${fileId} does not exist`);
  const documents = (await repositories.uploadedFiles.documentsOf([fileId])).get(fileId) ?? [];
  return { ...presentUploadedFile(file, documents), company_id: file.company_id };
}
