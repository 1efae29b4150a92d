import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { operation, pathIds } from '../openapi/common';
import { dianSettingsIn, dianSettingsOut } from './routes';

const tags = ['DIAN'];

export const dianSettingsOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies/{company_id}/dian-settings': {
    put: operation({
      operationId: 'putDianSettings',
      summary: "Set the company's DIAN software and signing certificate (scope documents:write, admin role)",
      tags,
      restricted: true,
      path: pathIds('company_id'),
      body: dianSettingsIn,
      success: { status: 200, description: 'The settings, without their secrets.', schema: dianSettingsOut },
      errors: { 400: 'invalid_parameter: a malformed field, or a certificate that cannot be opened with the password (error.param names which).' },
    }),
    get: operation({
      operationId: 'getDianSettings',
      summary: "The company's DIAN settings, without secrets (scope documents:read)",
      tags,
      restricted: true,
      path: pathIds('company_id'),
      success: { status: 200, description: 'The settings.', schema: dianSettingsOut },
      errors: { 404: 'not_found: no such company, or no settings yet.' },
    }),
  },
};
