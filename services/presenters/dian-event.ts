import type { DianEventRow } from '../../db/repositories/dian-events';
import type { Repositories } from '../../db/repositories';

/** Tax-authority event record (spec; payload of dian_event.completed / dian_event.failed). */
export type DianEventRecord = {
  invoice_id: number;
  cufe: string;
  event: string;
  succeeded: boolean;
  error?: { code: string; message: string };
};

export function presentDianEventRecord(event: DianEventRow, cufe: string | null): DianEventRecord {
  return {
    invoice_id: event.document_id,
    cufe: cufe ?? '',
    event: event.event,
    succeeded: event.status === 'succeeded',
    ...(event.status === 'failed' ? { error: { code: event.error_code ?? 'failed', message: event.error_message ?? '' } } : {}),
  };
}

/** The record of one DIAN event as events carry it, with its company (for publishing). */
export async function loadDianEventRecord(repositories: Pick<Repositories, 'dianEvents'>, eventId: number): Promise<DianEventRecord & { company_id: number }> {
  const event = await repositories.dianEvents.findById(eventId);
  if (!event) throw new Error(`DIAN event ${eventId} does not exist`);
  const document = await repositories.dianEvents.documentOf(event.document_id);
  return { company_id: event.company_id, ...presentDianEventRecord(event, document?.cufe ?? null) };
}
