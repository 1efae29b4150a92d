import { z } from 'zod';
import type { DianEventRow } from '../../db/repositories/dian-events';
import type { Repositories } from '../../db/repositories';
import { id } from './fields';

/** Tax-authority event record (spec; payload of dian_event.completed / dian_event.failed). */
export const dianEventRecordOut = z
  .object({
    invoice_id: id,
    cufe: z.string(),
    event: z.enum(['030', '032', '033']),
    succeeded: z.boolean(),
    error: z.object({ code: z.string(), message: z.string() }).optional().meta({ description: 'Only when the event failed. Codes in docs/dian.md.' }),
  })
  .meta({ id: 'DianEventRecord' });

export type DianEventRecord = z.infer<typeof dianEventRecordOut>;

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
