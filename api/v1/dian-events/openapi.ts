import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { operation, pathIds } from '../openapi/common';
import { dianEventIn, dianEventOut } from './schemas';

const tags = ['DIAN'];
const invoice = pathIds('company_id', 'document_id');

export const dianEventsOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies/{company_id}/invoices/{document_id}/dian-events': {
    post: operation({
      operationId: 'sendDianEvent',
      summary: 'Send a buyer event (030, 032, 033) about a received invoice to DIAN (scope documents:write)',
      tags,
      restricted: true,
      path: invoice,
      body: dianEventIn,
      success: { status: 202, description: 'The event, pending; dian_event.completed or dian_event.failed tells the outcome.', schema: dianEventOut },
      errors: {
        409: 'not_a_purchase, dian_settings_missing, event_already_registered, event_in_progress or event_out_of_order (032 needs 030, 033 needs 032).',
      },
    }),
    get: operation({
      operationId: 'listDianEvents',
      summary: 'The DIAN events of an invoice, oldest first (scope documents:read)',
      tags,
      restricted: true,
      path: invoice,
      success: { status: 200, description: 'The events.', schema: z.object({ data: z.array(dianEventOut) }) },
    }),
  },
};
