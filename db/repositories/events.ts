import type { Database } from '../connection';
import { DELIVERY_RETENTION_DAYS } from '../../domain/webhooks/retry-schedule';
import { PREPARED } from '../prepared-statement';

export type NewEvent = { id: string; companyId: number; type: string; data: unknown };

export type RecordedEvent = { id: string; company_id: number; type: string; payload: string };

export type PendingDelivery = { id: number; endpoint_id: number };

/** A timestamp as the delivery body's created_at shows it: microseconds and a UTC offset. */
const bodyTimestamp = (expression: string) => `to_char(${expression} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"')`;

/**
 * The delivery body `{id, type, created_at, company_id, data}` around its created_at, which only
 * the database knows when the row is written: the body is `before + created_at + after`.
 */
function payloadAround(event: { id: string; type: string; company_id: number }, dataJson: string): { before: string; after: string } {
  return {
    before: `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"created_at":"`,
    after: `","company_id":${JSON.stringify(event.company_id)},"data":${dataJson}}`,
  };
}

/**
 * An event's insert with its delivery body, whose created_at is the row's (now() of the insert,
 * in microseconds); it inserts nothing when the id is already recorded. Bindings: insertBindings.
 */
const INSERT_EVENT = `INSERT INTO events (id, company_id, type, data, created_at, payload)
  VALUES (?, ?, ?, ?::jsonb, now(), ? || ${bodyTimestamp('now()')} || ?)
  ON CONFLICT (id) DO NOTHING RETURNING id, company_id, type, payload`;

function insertBindings(event: NewEvent): (string | number)[] {
  const dataJson = JSON.stringify(event.data);
  const { before, after } = payloadAround({ id: event.id, type: event.type, company_id: event.companyId }, dataJson);
  return [event.id, event.companyId, event.type, dataJson, before, after];
}

export function createEventsRepository(db: Database) {
  /** The event a repeated record() found; rows written before bodies were stored with them get theirs now. */
  async function recorded(id: string): Promise<RecordedEvent> {
    const row = await db('events')
      .where({ id })
      .first<{ id: string; company_id: number; type: string; payload: string | null; data: unknown; created_at_text: string }>(
        'id', 'company_id', 'type', 'payload', 'data', db.raw(`${bodyTimestamp('created_at')} AS created_at_text`),
      );
    if (!row) throw new Error(`event ${id} vanished`);
    if (row.payload) return { id: row.id, company_id: row.company_id, type: row.type, payload: row.payload };
    const { before, after } = payloadAround(row, JSON.stringify(row.data));
    const payload = before + row.created_at_text + after;
    // Two repeats render the same body from the same row; the first one written stays.
    await db('events').where({ id }).whereNull('payload').update({ payload });
    return { id: row.id, company_id: row.company_id, type: row.type, payload };
  }

  return {
    /** Persists an event once (a retried call finds the first one) with its delivery body (INSERT_EVENT). */
    async record(event: NewEvent): Promise<RecordedEvent> {
      const inserted = await db.raw<{ rows: RecordedEvent[] }>(INSERT_EVENT, insertBindings(event)).options(PREPARED);
      if (inserted.rows[0]) return inserted.rows[0];
      return recorded(event.id);
    },

    /**
     * record() and the event's pending deliveries in one statement: one delivery for each live,
     * enabled endpoint of the company subscribed to the type (an empty list is every type, as
     * domain/webhooks/event-types.ts isSubscribed), in endpoint order. Undefined when the event
     * was already recorded: a repeated call must take the step-by-step path, which finds what
     * the first call wrote (its deliveries, and the ones it did not get to).
     */
    async recordWithDeliveries(event: NewEvent): Promise<{ event: RecordedEvent; deliveries: PendingDelivery[] } | undefined> {
      const result = await db.raw<{ rows: (RecordedEvent & { deliveries: PendingDelivery[] })[] }>(
        `WITH event AS (${INSERT_EVENT}), deliveries AS (
           INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, next_attempt_at)
           SELECT endpoint.id, event.id, event.type, now()
             FROM event JOIN webhook_endpoints endpoint ON endpoint.company_id = event.company_id
            WHERE endpoint.deleted_at IS NULL AND endpoint.enabled
              AND (cardinality(endpoint.events) = 0 OR event.type = ANY (endpoint.events))
            ORDER BY endpoint.id
           RETURNING id, endpoint_id
         )
         SELECT event.id, event.company_id, event.type, event.payload,
                coalesce((SELECT json_agg(json_build_object('id', d.id, 'endpoint_id', d.endpoint_id) ORDER BY d.id) FROM deliveries d), '[]') AS deliveries
           FROM event`,
        insertBindings(event),
      ).options(PREPARED);
      const [row] = result.rows;
      if (!row) return undefined;
      const { deliveries, ...recordedEvent } = row;
      return { event: recordedEvent, deliveries };
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
