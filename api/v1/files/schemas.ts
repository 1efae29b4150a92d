import { z } from 'zod';
import { PDF_KINDS } from '../../../domain/ingestion/plan-import';
import { idempotencyKeyHeader } from '../openapi/common';

/** Uploads take the Idempotency-Key of every POST, with rules of their own (api/v1/files/routes.ts). */
export const uploadHeaders = z.object({
  'Idempotency-Key': idempotencyKeyHeader('Repeating an upload with the same key returns the first file (header Idempotent-Replayed: true); the same key with other bytes, another file name or another kind is a 409.'),
});

/** The text fields of POST /files' multipart body (validated by the route). */
export const uploadFields = z.strictObject({
  kind: z.enum(PDF_KINDS, { error: `kind must be one of ${PDF_KINDS.join(', ')}.` }).optional().meta({ description: 'For a PDF: which kind of document it is.' }),
});

/** The multipart body of POST /files: the file and the text fields. */
export const uploadIn = uploadFields
  .extend({
    file: z.string().min(1).meta({ format: 'binary', description: 'The XML, ZIP or PDF file (detected from its content, not its name), at most 20 MB.' }),
  })
  .meta({ id: 'FileUpload' });
