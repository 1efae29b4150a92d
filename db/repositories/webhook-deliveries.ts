import type { Database } from '../connection';
import { DELIVERY_RETENTION_DAYS } from '../../domain/webhooks/retry-schedule';

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export type WebhookDeliveryRow = {
  id: number;
  endpoint_id: number;
  event_id: string;
  event_type: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  updated_at: Date;
};

export type AttemptRecord = {
  deliveryId: number;
  attempt: number;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  succeeded: boolean;
  /** When the next attempt is due; null after the last one. */
  nextAttemptAt: Date | null;
};

export function createWebhookDeliveriesRepository(db: Database) {
  const withEventType = () =>
    db('webhook_deliveries as d').join('events as e', 'e.id', 'd.event_id').select<WebhookDeliveryRow[]>('d.*', 'e.type as event_type');

  return {
    /** One pending delivery per endpoint; a repeated call for the same event adds nothing. */
    async createForEvent(eventId: string, endpointIds: number[]): Promise<{ id: number; endpoint_id: number }[]> {
      if (endpointIds.length > 0) {
        await db('webhook_deliveries')
          .insert(endpointIds.map((endpointId) => ({ endpoint_id: endpointId, event_id: eventId, next_attempt_at: db.fn.now() })))
          .onConflict(['endpoint_id', 'event_id'])
          .ignore();
      }
      return db('webhook_deliveries').where({ event_id: eventId }).whereIn('endpoint_id', endpointIds).select('id', 'endpoint_id');
    },

    async find(id: number): Promise<WebhookDeliveryRow | undefined> {
      return withEventType().where('d.id', id).first();
    },

    /** The last 30 days, newest first (ids grow with creation), keyset-paginated on the id. */
    listForEndpoint(endpointId: number, limit: number, beforeId?: number): Promise<WebhookDeliveryRow[]> {
      const query = withEventType()
        .where('d.endpoint_id', endpointId)
        .where('d.created_at', '>=', db.raw(`now() - interval '${DELIVERY_RETENTION_DAYS} days'`))
        .orderBy('d.id', 'desc')
        .limit(limit);
      if (beforeId !== undefined) query.where('d.id', '<', beforeId);
      return query;
    },

    /**
     * Records one attempt and moves the delivery on. Only a pending delivery moves: one already
     * failed by a deactivation stays failed even if an attempt in flight finishes afterwards.
     */
    async recordAttempt(record: AttemptRecord, finalAttempt: boolean): Promise<DeliveryStatus> {
      return db.transaction(async (trx) => {
        await trx('webhook_attempts')
          .insert({
            delivery_id: record.deliveryId,
            attempt_number: record.attempt,
            started_at: record.startedAt,
            duration_ms: Math.round(record.durationMs),
            status_code: record.statusCode,
            error: record.error,
          })
          .onConflict(['delivery_id', 'attempt_number'])
          .ignore();
        const status: DeliveryStatus = record.succeeded ? 'delivered' : finalAttempt ? 'failed' : 'pending';
        const [row] = await trx('webhook_deliveries')
          .where({ id: record.deliveryId, status: 'pending' })
          .update({
            status,
            attempts: db.raw('greatest(attempts, ?)', [record.attempt]),
            last_status_code: record.statusCode,
            last_error: record.error,
            next_attempt_at: status === 'pending' ? record.nextAttemptAt : null,
            updated_at: db.fn.now(),
          })
          .returning('status');
        if (row) return row.status as DeliveryStatus;
        const current = await trx('webhook_deliveries').where({ id: record.deliveryId }).first('status');
        return (current?.status ?? 'failed') as DeliveryStatus;
      });
    },

    /** Ends a delivery without (further) attempts, e.g. its endpoint is disabled or gone. */
    async failIfPending(id: number, reason: string): Promise<void> {
      await db('webhook_deliveries')
        .where({ id, status: 'pending' })
        .update({ status: 'failed', next_attempt_at: null, last_error: reason, updated_at: db.fn.now() });
    },

    async failAllPending(endpointId: number, reason: string): Promise<{ id: number; event_id: string }[]> {
      return db('webhook_deliveries')
        .where({ endpoint_id: endpointId, status: 'pending' })
        .update({ status: 'failed', next_attempt_at: null, last_error: reason, updated_at: db.fn.now() })
        .returning(['id', 'event_id']);
    },

    /** Retention: deliveries (and their attempts) older than 30 days, in bounded batches. */
    async purgeExpired(batchSize = 5000): Promise<number> {
      let total = 0;
      for (;;) {
        const deleted = await db.raw<{ rowCount: number }>(
          `DELETE FROM webhook_deliveries WHERE id IN (
             SELECT id FROM webhook_deliveries WHERE created_at < now() - interval '${DELIVERY_RETENTION_DAYS} days' LIMIT ?)`,
          [batchSize],
        );
        total += deleted.rowCount;
        if (deleted.rowCount < batchSize) return total;
      }
    },
  };
}

export type WebhookDeliveriesRepository = ReturnType<typeof createWebhookDeliveriesRepository>;
