import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import { operation, pathIds, signedRedirect } from '../openapi/common';
import { acceptedLocation } from '../openapi/response-headers';
import { dianEventIn, dianEventOut } from './schemas';

const tags = ['DIAN'];
const invoice = pathIds('company_id', 'document_id');
/** An event has no GET of its own: its outcome, and DIAN's registered events, show in the invoice's list. */
const toInvoiceEvents = () => acceptedLocation("the invoice's DIAN events (listDianEvents)");

export const dianEventsOpenApi: ZodOpenApiPathsObject = {
  '/v1/companies/{company_id}/invoices/{document_id}/dian-events': {
    post: operation({
      operationId: 'sendDianEvent',
      summary: 'Send a buyer event (030, 032, 033) about a received invoice to DIAN (scope documents:write)',
      tags,
      restricted: true,
      path: invoice,
      body: dianEventIn,
      success: { status: 202, description: 'The event, pending; dian_event.completed or dian_event.failed tells the outcome.', schema: dianEventOut, headers: toInvoiceEvents() },
      errors: {
        409: 'not_a_purchase, not_eligible_for_events, dian_settings_missing, dian_environment_mismatch (the invoice was validated in the other DIAN environment), event_already_registered, event_in_progress, event_out_of_order (032 needs 030, 033 needs 032), invoice_claimed or tacitly_accepted (033 after DC24c\'s window, unless an earlier 033 of ours went out inside it and ended failed: that one is queued to confirm it with DIAN).',
      },
    }),
    get: operation({
      operationId: 'listDianEvents',
      summary: 'The DIAN events of an invoice, oldest first (scope documents:read)',
      tags,
      restricted: true,
      path: invoice,
      success: {
        status: 200,
        description: 'The events sent, and what DIAN last said it has registered for the invoice.',
        schema: z.object({
          data: z.array(dianEventOut),
          registered_at_dian: z.array(z.object({ event: z.string(), description: z.string().nullable(), cude: z.string().nullable(), effective_date: z.string().nullable() })),
          registered_at_dian_synced_at: z.string().nullable(),
        }),
      },
    }),
  },
  '/v1/companies/{company_id}/invoices/{document_id}/dian-events/sync': {
    post: operation({
      operationId: 'syncDianEvents',
      summary: "Refresh the invoice's registered_at_dian from DIAN's GetStatusEvent in the background (scope documents:write)",
      tags,
      restricted: true,
      emptyBody: true,
      path: invoice,
      success: {
        status: 202,
        description: 'The sync started (or joined the one running).',
        headers: toInvoiceEvents(),
        schema: z.object({ invoice_id: z.int(), cufe: z.string().nullable(), status: z.literal('syncing'), registered_at_dian_synced_at: z.string().nullable() }),
      },
      errors: { 409: 'not_a_purchase, dian_settings_missing, or dian_environment_mismatch (the settings send to the other DIAN environment than the one that validated the invoice).' },
    }),
  },
  '/v1/companies/{company_id}/invoices/{document_id}/dian-events/{event_id}/application-response': {
    get: operation({
      operationId: 'getDianEventApplicationResponse',
      summary: 'The signed ApplicationResponse of an event, as sent',
      tags,
      restricted: true,
      path: pathIds('company_id', 'document_id', 'event_id'),
      success: signedRedirect('The XML.'),
      errors: { 404: 'not_found, or file_not_available (not produced yet).' },
    }),
  },
  '/v1/companies/{company_id}/invoices/{document_id}/dian-events/{event_id}/dian-response': {
    get: operation({
      operationId: 'getDianEventDianResponse',
      summary: "DIAN's last answer to an event",
      tags,
      restricted: true,
      path: pathIds('company_id', 'document_id', 'event_id'),
      success: signedRedirect('The JSON answer.'),
      errors: { 404: 'not_found, or file_not_available (no answer yet).' },
    }),
  },
};
