import { z } from 'zod';
import { integrationName } from '../integrations/schemas';

const force = z.boolean({ error: 'force must be true or false.' }).default(false);
const text = (name: string) => z.string({ error: `${name} must be a string.` }).trim().min(1, `${name} is required.`).max(200, `${name} must be at most 200 characters.`);

/** POST /v1/companies/{company_id}/invoices/{document_id}/export */
export const exportIn = z.strictObject({ integration: integrationName, force });

/** POST /v1/companies/{company_id}/exports */
export const bulkExportIn = z.strictObject({
  integration: integrationName,
  document_ids: z
    .array(z.number({ error: 'document_ids must be a list of document ids.' }).int().positive(), { error: 'document_ids must be a list of document ids.' })
    .min(1, 'document_ids must list at least one document.')
    .max(100, 'document_ids may list at most 100 documents.')
    .transform((ids) => [...new Set(ids)]),
  force,
});

/** POST /v1/companies/{company_id}/invoices/{document_id}/export/manual */
export const manualExportIn = z.strictObject({
  integration: integrationName,
  external_id: text('external_id'),
  external_number: text('external_number'),
  external_name: text('external_name').nullable().optional(),
});
