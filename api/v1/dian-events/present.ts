import type { DianEventOut } from './schemas';
import type { DianEventRow } from '../../../db/repositories/dian-events';
import type { DianRegisteredEventRow } from '../../../db/repositories/dian-registered-events';

/**
 * The Tax-authority event record (spec: invoice_id, cufe, event, succeeded, error on failure)
 * plus, in the API only, id, number (cbc:ID sent to DIAN), status (pending | succeeded | failed), cude and timestamps.
 */
const eventPath = (row: DianEventRow) => `/v1/companies/${row.company_id}/invoices/${row.document_id}/dian-events/${row.id}`;

export function presentDianEvent(row: DianEventRow, cufe: string): DianEventOut {
  return {
    id: row.id,
    invoice_id: row.document_id,
    cufe,
    event: row.event,
    // An event that adopted an earlier attempt DIAN held shows that attempt's number: the one DIAN holds and its file carries.
    number: row.adopted_number ?? row.number,
    status: row.status,
    succeeded: row.status === 'succeeded',
    cude: row.cude,
    ...(row.status === 'failed' ? { error: { code: row.error_code ?? 'failed', message: row.error_message ?? '' } } : {}),
    // Links (API paths, redirecting to signed downloads), null until the file exists.
    files: {
      application_response: row.signed_xml_blob_key ? `${eventPath(row)}/application-response` : null,
      dian_response: row.dian_response_blob_key ? `${eventPath(row)}/dian-response` : null,
    },
    created_at: row.created_at.toISOString(),
    completed_at: row.completed_at ? row.completed_at.toISOString() : null,
  };
}

/** An event DIAN has registered against the invoice, as GetStatusEvent lists it. */
export function presentRegisteredEvent(row: DianRegisteredEventRow) {
  return { event: row.event, description: row.description, cude: row.cude, effective_date: row.effective_date };
}
