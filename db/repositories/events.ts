import type { Database } from '../connection';
import { DELIVERY_RETENTION_DAYS } from '../../domain/webhooks/retry-schedule';

export type NewEvent = { id: string; companyId: number; type: string; data: unknown };

export type RecordedEvent = { id: string; company_id: number; type: string; payload: string };

export function createEventsRepository(db: Database) {
  return {
    /**
     * Persists an event once (a retried call finds the first one) and renders its delivery body:
     * `{id, type, created_at, company_id, data}` with created_at in microseconds and a UTC offset.
     */
    async record(event: NewEvent): Promise<RecordedEvent> {
      return db.transaction(async (trx) => {
        await trx('events')
          .insert({ id: event.id, company_id: event.companyId, type: event.type, data: JSON.stringify(event.data) })
          .onConflict('id')
          .ignore();
        const row = await trx('events')
          .where({ id: event.id })
          .first<{ id: string; company_id: number; type: string; payload: string | null; data: unknown; created_at_text: string }>(
            'id', 'company_id', 'type', 'payload', 'data',
            trx.raw(`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') AS created_at_text`),
          );
        if (!row) throw new Error(`event ${event.id} vanished`);
        if (row.payload) return { id: row.id, company_id: row.company_id, type: row.type, payload: row.payload };
        const payload = JSON.stringify({ id: row.id, type: row.type, created_at: row.created_at_text, company_id: row.company_id, data: row.data });
        await trx('events').where({ id: event.id }).update({ payload });
        return { id: row.id, company_id: row.company_id, type: row.type, payload };
      });
    },

    /** Events older than the delivery history that no delivery refers to any more. */
    async purgeExpired(): Promise<number> {
      const result = await db.raw<{ rowCount: number }>(
        `DELETE FROM events e WHERE e.created_at < now() - interval '${DELIVERY_RETENTION_DAYS} days'
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id)`,
      );
      return result.rowCount;
    },
  };
}

export type EventsRepository = ReturnType<typeof createEventsRepository>;
