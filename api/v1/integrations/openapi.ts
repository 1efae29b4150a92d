import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { linksTo, operation, pageOf, pageQuery, pathIds } from '../openapi/common';
import { INTEGRATION_PAGE } from './routes';
import { integrationIn, integrationOut } from './schemas';

const tags = ['Integrations'];

export const integrationsOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies/{company_id}/integrations': {
    post: operation({
      operationId: 'createIntegration',
      summary: 'Configure an accounting integration (scope documents:write, admin role)',
      description: 'Nothing is contacted: the configuration is only checked. Credentials are sealed at rest and never returned.',
      tags,
      restricted: true,
      path: pathIds('company_id'),
      body: integrationIn,
      success: {
        status: 201,
        description: 'The integration, without its credentials.',
        schema: integrationOut,
        links: linksTo('integration_id', 'id', ['getIntegration', 'deleteIntegration'], { company_id: '$request.path.company_id' }),
      },
      errors: {
        400: 'invalid_parameter: a malformed field, or a settings.url the deployment does not allow (https only and public addresses in production).',
        409: 'integration_name_taken: the company already has an integration with this name.',
      },
    }),
    get: operation({
      operationId: 'listIntegrations',
      summary: "The company's integrations (scope documents:read)",
      tags,
      restricted: true,
      path: pathIds('company_id'),
      query: pageQuery(INTEGRATION_PAGE),
      success: { status: 200, description: 'A page of integrations.', schema: pageOf(integrationOut) },
    }),
  },
  '/v1/companies/{company_id}/integrations/{integration_id}': {
    get: operation({
      operationId: 'getIntegration',
      summary: 'One integration, without its credentials (scope documents:read)',
      tags,
      restricted: true,
      path: pathIds('company_id', 'integration_id'),
      success: { status: 200, description: 'The integration, without its credentials.', schema: integrationOut },
    }),
    delete: operation({
      operationId: 'deleteIntegration',
      summary: 'Delete an integration (scope documents:write, admin role)',
      tags,
      restricted: true,
      path: pathIds('company_id', 'integration_id'),
      success: { status: 204, description: 'Deleted.' },
    }),
  },
};
