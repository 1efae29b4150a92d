import type { Database } from '../connection';

export type DianRegisteredEventRow = {
  id: number;
  company_id: number;
  document_id: number;
  /** DIAN's event code: 030…034 and any other DIAN lists. */
  event: string;
  description: string;
  cude: string | null;
  /** YYYY-MM-DD (db/connection.ts reads DATE as text). */
  effective_date: string | null;
  synced_at: Date;
};

export type DianRegisteredEventInput = { event: string; description: string; cude: string | null; effectiveDate: string | null };

/** What GetStatusEvent last said about an invoice (migration 20261123070100). */
export function createDianRegisteredEventsRepository(db: Database) {
  return {
    listForDocument(companyId: number, documentId: number): Promise<DianRegisteredEventRow[]> {
      return db<DianRegisteredEventRow>('dian_registered_events').where({ company_id: companyId, document_id: documentId }).orderBy('id', 'asc');
    },

    async syncedAt(companyId: number, documentId: number): Promise<Date | null> {
      const row = await db('documents').where({ company_id: companyId, id: documentId }).first('dian_events_synced_at');
      return (row?.dian_events_synced_at as Date | null | undefined) ?? null;
    },

    /** Those of `documentIds` that are the company's purchases with a CUFE. */
    async purchasesAmong(companyId: number, documentIds: number[]): Promise<number[]> {
      if (documentIds.length === 0) return [];
      const rows = await db('documents').where({ company_id: companyId, kind: 'purchase' }).whereIn('id', documentIds).whereNotNull('cufe').orderBy('id').select('id');
      return rows.map((row: { id: number }) => row.id);
    },

    /** Replaces the invoice's list with DIAN's answer and stamps documents.dian_events_synced_at. */
    async replace(companyId: number, documentId: number, events: DianRegisteredEventInput[]): Promise<void> {
      await db.transaction(async (trx) => {
        await trx('dian_registered_events').where({ company_id: companyId, document_id: documentId }).delete();
        const unique = new Map(events.map((event) => [`${event.event}|${event.cude ?? ''}`, event]));
        if (unique.size) {
          await trx('dian_registered_events').insert(
            [...unique.values()].map((event) => ({
              company_id: companyId,
              document_id: documentId,
              event: event.event,
              description: event.description,
              cude: event.cude,
              effective_date: event.effectiveDate,
            })),
          );
        }
        await trx('documents').where({ id: documentId, company_id: companyId }).update({ dian_events_synced_at: trx.fn.now() });
      });
    },
  };
}

export type DianRegisteredEventsRepository = ReturnType<typeof createDianRegisteredEventsRepository>;
