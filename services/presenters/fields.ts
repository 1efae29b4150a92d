import { z } from 'zod';

/**
 * Field schemas shared by the response schemas of the presenters (and, through
 * api/v1/openapi/common.ts, by the OpenAPI document).
 */

/** Database ids are bigint; the API takes and shows them as JSON-safe integers. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const id = z.int().min(1).max(MAX_ID);

export const timestamp = z.iso.datetime({ offset: true });
export const nullableTimestamp = timestamp.nullable();

/** The short form of a document inside other records (domain/documents/document-entry.ts). */
export const documentEntryOut = z
  .object({
    kind: z.string(),
    id,
    cufe: z.string().nullable(),
    document_type: z.string().nullable(),
    code_scheme: z.string().nullable(),
    dian_environment: z.enum(['production', 'testing']).nullable().meta({
      description:
        "The DIAN environment that validated the document, as on the document: testing (habilitación) is DIAN's test set, with no fiscal effect; null when unknown.",
    }),
  })
  .meta({ id: 'DocumentEntry' });
