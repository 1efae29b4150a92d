import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { operation, pathIds } from '../openapi/common';
import { companyOut } from '../../../services/presenters/company';

const tags = ['Companies'];

export const companiesOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies': {
    get: operation({
      operationId: 'listCompanies',
      summary: 'Companies the key is authorized for',
      tags,
      success: {
        status: 200,
        description: 'JSON array of companies, ordered by id.',
        schema: z.array(companyOut),
        links: {
          getCompany: { operationId: 'getCompany', parameters: { company_id: '$response.body#/0/id' } },
          listWebhookEndpoints: { operationId: 'listWebhookEndpoints', parameters: { company_id: '$response.body#/0/id' } },
          createWebhookEndpoint: { operationId: 'createWebhookEndpoint', parameters: { company_id: '$response.body#/0/id' } },
          createIntegration: { operationId: 'createIntegration', parameters: { company_id: '$response.body#/0/id' } },
          createPaymentClaimAccount: { operationId: 'createPaymentClaimAccount', parameters: { company_id: '$response.body#/0/id' } },
          uploadFile: { operationId: 'uploadFile', parameters: { company_id: '$response.body#/0/id' } },
        },
      },
    }),
  },
  '/v1/companies/{company_id}': {
    get: operation({
      operationId: 'getCompany',
      summary: 'One company the key is authorized for',
      tags,
      path: pathIds('company_id'),
      success: { status: 200, description: 'The company.', schema: companyOut },
    }),
  },
};
