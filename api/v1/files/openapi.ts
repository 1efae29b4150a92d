import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { acceptedLocation, IDEMPOTENT_REPLAYED } from '../openapi/response-headers';
import { linksTo, operation, pageOf, pageQuery, pathIds, signedRedirect } from '../openapi/common';
import { FILE_PAGE } from './routes';
import { uploadedFileOut } from '../../../services/presenters/uploaded-file';
import { uploadHeaders, uploadIn } from './schemas';

const tags = ['Files'];
const inCompany = { company_id: '$request.path.company_id' };

export const filesOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies/{company_id}/files': {
    post: operation({
      operationId: 'uploadFile',
      summary: 'Upload an XML, ZIP or PDF file to import (scope documents:write)',
      description: 'Answers 202 once the bytes and the record are stored and the import has started; GET the file to see its outcome.',
      tags,
      restricted: true,
      path: pathIds('company_id'),
      header: uploadHeaders,
      multipart: uploadIn,
      success: {
        status: 202,
        description: 'The uploaded file, PENDING (or the first file, on an idempotent replay).',
        schema: uploadedFileOut,
        headers: { ...acceptedLocation('the uploaded file (getFile)'), ...IDEMPOTENT_REPLAYED },
        links: linksTo('file_id', 'id', ['getFile', 'getFileContent'], inCompany),
      },
      errors: {
        400: 'invalid_multipart, invalid_parameter (no file field, an unknown kind, a bad Idempotency-Key, a filename* its charset cannot read) or empty_file.',
        409: 'idempotency_key_reused: the Idempotency-Key was used for a different file.',
        413: 'file_too_large (20 MB) or payload_too_large.',
        415: 'unsupported_media_type (not multipart/form-data) or unsupported_file_type (the content is not XML, ZIP or PDF).',
      },
    }),
    get: operation({
      operationId: 'listFiles',
      summary: "The company's uploaded files, newest first (scope documents:read)",
      tags,
      restricted: true,
      path: pathIds('company_id'),
      query: pageQuery(FILE_PAGE),
      success: { status: 200, description: 'A page of uploaded files.', schema: pageOf(uploadedFileOut) },
    }),
  },
  '/v1/companies/{company_id}/files/{file_id}': {
    get: operation({
      operationId: 'getFile',
      summary: 'One uploaded file and the outcome of its import',
      tags,
      restricted: true,
      path: pathIds('company_id', 'file_id'),
      success: { status: 200, description: 'The uploaded file.', schema: uploadedFileOut },
    }),
  },
  '/v1/companies/{company_id}/files/{file_id}/content': {
    get: operation({
      operationId: 'getFileContent',
      summary: 'The bytes of an uploaded file',
      tags,
      restricted: true,
      path: pathIds('company_id', 'file_id'),
      success: signedRedirect('The file.'),
    }),
  },
};
