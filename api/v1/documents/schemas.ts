import { z } from 'zod';
import { id, nullableTimestamp, timestamp } from '../openapi/common';
import { documentWarningsOut } from '../../../services/presenters/fields';

export const money = z.string().regex(/^-?[0-9]+\.[0-9]{2}$/).meta({ id: 'Money', description: 'Decimal with 2 places, as a string.' });

export const filesOut = z
  .object({
    original: z.union([
      z.object({ available: z.literal(false) }),
      z.object({ available: z.literal(true), file_name: z.string(), extension: z.string(), content_type: z.string(), size: z.int().min(0) }),
    ]),
    pdf: z.object({ status: z.enum(['available', 'on_demand', 'none']), source: z.enum(['original', 'service']).nullable() }),
  })
  .meta({ id: 'FilesObject' });

const decimal = z.string().meta({ description: 'A decimal amount as written in the document.' });

/** Taxes, withholdings, allowances/charges, prepayments, rounding, exchange rate and COP equivalents (docs/ingestion.md). */
export const accountingOut = z.object({
  taxes: z.array(
    z.object({
      tax_scheme_id: z.string(),
      tax_scheme_name: z.string().nullable(),
      percent: decimal.nullable(),
      taxable_amount: decimal,
      amount: decimal,
      per_unit_amount: decimal.nullable().meta({ description: 'A tax per unit (INC bolsas…), which has no percent: its amount per unit (cbc:PerUnitAmount).' }),
      units: decimal.nullable().meta({ description: 'The units a tax per unit applies to (cbc:BaseUnitMeasure).' }),
    }),
  ),
  tax_total: decimal.nullable(),
  withholdings: z.array(
    z.object({
      type: z.enum(['rete_fuente', 'rete_iva', 'rete_ica', 'other']),
      tax_scheme_id: z.string(),
      tax_scheme_name: z.string().nullable(),
      percent: decimal.nullable(),
      taxable_amount: decimal,
      amount: decimal,
      amount_cop: decimal.nullable(),
    }),
  ),
  withholding_total: decimal,
  allowance_charges: z.array(
    z.object({ charge: z.boolean(), reason_code: z.string().nullable(), reason: z.string().nullable(), percent: decimal.nullable(), amount: decimal, base_amount: decimal.nullable() }),
  ),
  allowance_total: decimal,
  charge_total: decimal,
  prepaid_amount: decimal,
  prepaid_payments: z.array(
    z.object({ id: z.string().nullable(), amount: decimal, received_date: z.string().nullable(), paid_date: z.string().nullable(), instruction: z.string().nullable() }),
  ),
  payable_rounding_amount: decimal,
  tax_rounding_amount: decimal.meta({
    description: "Sum of the document-level cac:TaxTotal/cbc:RoundingAmount (each tributo's own rounding) as written, \"0.00\" when absent; informative, not part of tax_total (docs/ingestion.md).",
  }),
  exchange_rate: z.object({ source_currency: z.string(), target_currency: z.string(), rate: decimal, date: z.string().nullable() }).nullable(),
  cop_equivalents: z.object({ sub_total: decimal, vat: decimal, tax_total: decimal.nullable(), total: decimal, withholding_total: decimal }).nullable(),
});

/** The spec's Invoice object; every kind shares it (referenced_document(s) only on credit and debit notes). */
export const documentOut = z
  .object({
    id,
    number: z.string().nullable(),
    cufe: z.string().nullable(),
    kind: z.enum(['purchase', 'sale']),
    issued_at: timestamp,
    due_date: z.string().meta({ format: 'date' }).nullable(),
    contact: z.object({ id, id_number: z.int().nullable(), name: z.string().nullable() }).nullable(),
    sub_total: money,
    vat: money,
    total: money,
    currency: z.string().nullable(),
    document_type: z.string().nullable().meta({ description: 'What the document is for DIAN; null for a bare PDF.' }),
    document_type_code: z.string().nullable(),
    code_scheme: z.string().nullable(),
    dian_environment: z.enum(['production', 'testing']).nullable().meta({
      description:
        "The DIAN environment that validated the document (cbc:ProfileExecutionID 1 production, 2 testing = habilitación). A testing document is DIAN's test set, not a real purchase or sale, and has no fiscal effect. Null when the XML does not say, for a bare PDF, or for a document imported before it was read (invoicing documents reclassify).",
    }),
    ...accountingOut.shape,
    warnings: documentWarningsOut,
    synced: z.boolean(),
    synced_at: nullableTimestamp,
    export: z
      .object({
        integration: z.string(),
        external_id: z.string().nullable(),
        external_number: z.string().nullable(),
        external_name: z.string().nullable(),
        exported_at: nullableTimestamp,
        marked_manually: z.boolean(),
      })
      .nullable(),
    imported_file_id: id.nullable(),
    files: filesOut,
    referenced_document: z
      .object({ number: z.string(), cufe: z.string().nullable() })
      .nullable()
      .optional()
      .meta({ description: 'The first document the note corrects (referenced_documents lists them all); null when it names none.' }),
    referenced_documents: z
      .array(z.object({ number: z.string(), cufe: z.string().nullable(), issue_date: z.string().meta({ format: 'date' }).nullable() }))
      .optional()
      .meta({
        description:
          'Every document the note corrects, in the order written (one cac:BillingReference each: a note may correct several invoices; else the cac:DiscrepancyResponse reference, without CUFE). cufe is the CUFE/CUDE in lower case; issue_date is null when not written or for a note imported before 2026-11-25.',
      }),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Document', description: "The spec's Invoice object; every kind shares it (cufe is null for kinds without one; referenced_document and referenced_documents only on credit and debit notes)." });

export type DocumentOut = z.infer<typeof documentOut>;
