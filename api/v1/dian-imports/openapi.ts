import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { linksTo, operation, pageOf, pageQuery, pathIds } from '../openapi/common';
import { acceptedLocation } from '../openapi/response-headers';
import { IMPORT_PAGE } from './routes';
import { dianImportOut } from '../../../services/presenters/dian-import';
import { dianImportIn, dianImportUpload } from './schemas';

const tags = ['DIAN'];

const start = operation({
  operationId: 'startDianImport',
  summary: 'Import the documents DIAN holds for the company in a date range (scope documents:write)',
  description: "JSON for DIAN's web service (simulator environment), or multipart/form-data with DIAN's \"documentos recibidos\" export as `file`.",
  tags,
  restricted: true,
  path: pathIds('company_id'),
  body: dianImportIn,
  success: {
    status: 202,
    description: 'The import run, PENDING; dian_import.completed or dian_import.failed tells the outcome.',
    schema: dianImportOut,
    headers: acceptedLocation('the import run (getDianImport)'),
    links: linksTo('import_id', 'id', ['getDianImport'], { company_id: '$request.path.company_id' }),
  },
  errors: {
    400: 'invalid_parameter: a malformed field, end_date before begin_date, a range of more than 3,653 days (ten years) to list from DIAN (without a file), or an export file that cannot be read.',
    409: "dian_settings_missing, or listing_not_supported (a date range against DIAN's real environments while DIAN_BULK_LISTING is off: upload the export).",
    507: 'insufficient_storage: the file store\'s disk (or the database\'s) is full; nothing was kept; retry later, with the same Idempotency-Key.',
  },
});
// The same operation also takes the multipart form.
start.requestBody = { required: true, content: { ...start.requestBody!.content, 'multipart/form-data': { schema: dianImportUpload } } };

export const dianImportsOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies/{company_id}/dian-imports': {
    post: start,
    get: operation({
      operationId: 'listDianImports',
      summary: "The company's DIAN import runs, newest first (scope documents:read)",
      tags,
      restricted: true,
      path: pathIds('company_id'),
      query: pageQuery(IMPORT_PAGE),
      success: { status: 200, description: 'A page of import runs.', schema: pageOf(dianImportOut) },
    }),
  },
  '/v1/companies/{company_id}/dian-imports/{import_id}': {
    get: operation({
      operationId: 'getDianImport',
      summary: 'One DIAN import run (scope documents:read)',
      tags,
      restricted: true,
      path: pathIds('company_id', 'import_id'),
      success: { status: 200, description: 'The import run.', schema: dianImportOut },
    }),
  },
};
