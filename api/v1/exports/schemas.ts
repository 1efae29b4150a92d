import { z } from 'zod';
import { bodyId, id, text, MAX_ID } from '../openapi/common';
import { integrationName } from '../integrations/schemas';
import { exportOut } from '../../../services/presenters/export';

const force = z.boolean({ error: 'force must be true or false.' }).default(false).meta({ description: 'Export even if the document was already exported.' });

/** POST /v1/companies/{company_id}/invoices/{document_id}/export */
export const exportIn = z.strictObject({ integration: integrationName, force }).meta({ id: 'ExportIn' });

/** POST /v1/companies/{company_id}/exports */
export const bulkExportIn = z
  .strictObject({
    integration: integrationName,
    document_ids: z
      .array(bodyId(`document_ids must list positive integer ids: JSON numbers from 1 to ${MAX_ID}.`), { error: 'document_ids must be a list of document ids.' })
      .min(1, 'document_ids must list at least one document.')
      .max(100, 'document_ids may list at most 100 documents.')
      .transform((ids) => [...new Set(ids)]),
    force,
  })
  .meta({ id: 'BulkExportIn' });

/** POST /v1/companies/{company_id}/invoices/{document_id}/export/manual */
export const manualExportIn = z
  .strictObject({
    integration: integrationName,
    external_id: text('external_id', 200),
    external_number: text('external_number', 200),
    external_name: text('external_name', 200).nullable().optional(),
    force: force.meta({ description: 'Replace the reference of a document already exported (automatically or by hand).' }),
  })
  .meta({ id: 'ManualExportIn' });

export const bulkExportOut = z
  .object({
    data: z.array(exportOut),
    errors: z.array(z.object({ document_id: id, code: z.string().meta({ examples: ['already_exported', 'export_in_progress', 'not_found'] }), message: z.string() })),
  })
  .meta({ id: 'BulkExportResult' });
