import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { operation, pathIds } from '../openapi/common';
import { companyOut } from '../../../services/presenters/company';

const tags = ['Companies'];

/** Operations on one company: the stateful fuzzer reaches them from the company list. */
const COMPANY_OPERATIONS = [
  'getCompany', 'listContacts', 'listInvoices', 'listCreditNotes', 'listDebitNotes', 'listForeignInvoices', 'listPaymentClaimAccounts',
  'createPaymentClaimAccount', 'uploadFile', 'listFiles', 'createWebhookEndpoint', 'listWebhookEndpoints', 'createIntegration',
  'listIntegrations', 'exportInvoices', 'listExports', 'putDianSettings', 'getDianSettings', 'startDianImport', 'listDianImports',
];

export const companiesOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies': {
    get: operation({
      operationId: 'listCompanies',
      summary: 'Companies the key is authorized for',
      tags,
      // None: the list is never paged, and a parameter (say limit) is refused, not ignored.
      query: z.object({}),
      success: {
        status: 200,
        description: 'JSON array of companies, ordered by id.',
        schema: z.array(companyOut),
        links: Object.fromEntries(COMPANY_OPERATIONS.map((operationId) => [operationId, { operationId, parameters: { company_id: '$response.body#/0/id' } }])),
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
