import { z } from 'zod';
import { TOTALS_WARNING_CODES } from '../../domain/ubl/totals-consistency';

/**
 * Field schemas shared by the response schemas of the presenters (and, through
 * api/v1/openapi/common.ts, by the OpenAPI document).
 */

/** Database ids are bigint; the API takes and shows them as JSON-safe integers. */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const id = z.int().min(1).max(MAX_ID);

export const timestamp = z.iso.datetime({ offset: true });
export const nullableTimestamp = timestamp.nullable();

/** What is wrong with a document's totals as written (domain/ubl/totals-consistency.ts, docs/ingestion.md). */
export const documentWarningsOut = z
  .array(
    z.object({
      code: z.enum(TOTALS_WARNING_CODES).meta({
        description:
          "line_extension_mismatch: LineExtensionAmount is not the sum of the lines'; tax_inclusive_mismatch: TaxInclusiveAmount is not LineExtensionAmount + the taxes; payable_amount_mismatch: PayableAmount is not TaxInclusiveAmount − AllowanceTotalAmount + ChargeTotalAmount − PrepaidAmount + PayableRoundingAmount, nor that sum with the advance left undeducted.",
      }),
      message: z.string().meta({ description: 'Names the two figures that disagree and their difference.' }),
    }),
  )
  .nullable()
  .meta({
    id: 'DocumentWarnings',
    description:
      "What is wrong with the document as written: monetary totals that contradict each other by a whole unit or more, which DIAN's validation rejects (docs/ingestion.md). The document is imported all the same and its figures are shown as written. Empty when its totals add up; null when they were never checked (no DIAN XML, or imported before 2026-11-25 until invoicing documents reclassify re-reads it).",
  });

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
    warnings: documentWarningsOut,
  })
  .meta({ id: 'DocumentEntry' });
