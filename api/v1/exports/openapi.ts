import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { linksTo, operation, pageOf, pageQuery, pathIds } from '../openapi/common';
import { documentOut } from '../documents/schemas';
import { acceptedLocation } from '../openapi/response-headers';
import { EXPORT_PAGE } from './routes';
import { exportOut } from '../../../services/presenters/export';
import { bulkExportIn, bulkExportOut, exportIn, manualExportIn } from './schemas';

const tags = ['Exports'];
const unknownIntegration = { 404: 'not_found: no such company or invoice, or the company has no integration of that name (error.param integration).' };
const toExport = linksTo('export_id', 'id', ['getExport'], { company_id: '$request.path.company_id' });

export const exportsOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies/{company_id}/invoices/{document_id}/export': {
    post: operation({
      operationId: 'exportInvoice',
      summary: 'Export an electronic invoice to an accounting integration (scope documents:write)',
      tags,
      restricted: true,
      path: pathIds('company_id', 'document_id'),
      body: exportIn,
      success: { status: 202, description: 'The export, pending; export.succeeded or export.failed tells the outcome.', schema: exportOut, headers: acceptedLocation('the export (getExport)'), links: toExport },
      errors: { ...unknownIntegration, 409: 'already_exported (send force: true) or export_in_progress.' },
    }),
  },
  '/v1/companies/{company_id}/invoices/{document_id}/export/manual': {
    post: operation({
      operationId: 'markInvoiceExported',
      summary: 'Record that an invoice was entered in the accounting software by hand (scope documents:write)',
      tags,
      restricted: true,
      path: pathIds('company_id', 'document_id'),
      body: manualExportIn,
      success: { status: 200, description: 'The invoice with its export.', schema: documentOut },
      errors: { ...unknownIntegration, 409: 'already_exported (send force: true to replace the reference) or export_in_progress (an export of the invoice is pending).' },
    }),
  },
  '/v1/companies/{company_id}/exports': {
    post: operation({
      operationId: 'exportInvoices',
      summary: 'Export up to 100 electronic invoices (scope documents:write)',
      tags,
      restricted: true,
      path: pathIds('company_id'),
      body: bulkExportIn,
      success: { status: 202, description: 'The exports started, and the documents refused with why.', schema: bulkExportOut },
      errors: { 404: 'not_found: no such company, or no integration of that name (error.param integration).' },
    }),
    get: operation({
      operationId: 'listExports',
      summary: "The company's exports, newest first (scope documents:read)",
      tags,
      restricted: true,
      path: pathIds('company_id'),
      query: pageQuery(EXPORT_PAGE),
      success: { status: 200, description: 'A page of exports.', schema: pageOf(exportOut) },
    }),
  },
  '/v1/companies/{company_id}/exports/{export_id}': {
    get: operation({
      operationId: 'getExport',
      summary: 'One export (scope documents:read)',
      tags,
      restricted: true,
      path: pathIds('company_id', 'export_id'),
      success: { status: 200, description: 'The export.', schema: exportOut },
    }),
  },
};
