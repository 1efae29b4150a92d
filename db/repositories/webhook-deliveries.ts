import type { Database } from '../connection';
import type { WebhookEndpointRow } from './webhook-endpoints';
import { countDelivery, countDeliveryAttempt } from '../../config/outcome-metrics';
import { DELIVERY_RETENTION_DAYS } from '../../domain/webhooks/retry-schedule';
import { PREPARED } from '../prepared-statement';
import { deleteOlderThan } from '../retention';

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
  /** The failed delivery this one resends (same event, same endpoint), or null for an original. */
  resend_of: number | null;
  /** The delivery that resent this one, if any. */
  resent_as: number | null;
  created_at: Date;
  updated_at: Date;
};

export type WebhookAttemptRow = {
  attempt_number: number;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
};

export type DeliveryFilters = { status?: DeliveryStatus; eventType?: string; since?: Date };

/** What a resend needs to start its workflow. */
export type ResendRef = { id: number; endpoint_id: number; event_id: string; resend_of: number };

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

export type AttemptContext = {
  endpoint: Pick<WebhookEndpointRow, 'company_id' | 'url' | 'secrets' | 'enabled' | 'deleted_at'> | null;
  deliveryStatus: DeliveryStatus | null;
  payload: string | null;
};

export function createWebhookDeliveriesRepository(db: Database) {
  const withEventType = () =>
    db('webhook_deliveries as d')
      .join('events as e', 'e.id', 'd.event_id')
      .leftJoin('webhook_deliveries as r', 'r.resend_of', 'd.id')
      .select<WebhookDeliveryRow[]>('d.*', 'e.type as event_type', 'r.id as resent_as');
  const withinRetention = () => db.raw(`now() - interval '${DELIVERY_RETENTION_DAYS} days'`);

  return {
    /** One pending delivery per endpoint; a repeated call for the same event adds nothing. */
    async createForEvent(event: { id: string; type: string }, endpointIds: number[]): Promise<{ id: number; endpoint_id: number }[]> {
      if (endpointIds.length === 0) return [];
      const existing = () =>
        db('webhook_deliveries').where({ event_id: event.id }).whereNull('resend_of').whereIn('endpoint_id', endpointIds).select('id', 'endpoint_id');
      // One statement: the rows it inserts, plus the ones a repeated call inserted before it.
      const inserted = db('webhook_deliveries')
        .insert(endpointIds.map((endpointId) => ({ endpoint_id: endpointId, event_id: event.id, event_type: event.type, next_attempt_at: db.fn.now() })))
        .onConflict(db.raw('(endpoint_id, event_id) WHERE resend_of IS NULL'))
        .ignore()
        .returning(['id', 'endpoint_id']);
      const rows: { id: number; endpoint_id: number }[] = await db
        .with('inserted', inserted)
        .select('id', 'endpoint_id')
        .from('inserted')
        .unionAll(existing())
        .orderBy('id');
      // A concurrent repeat's rows committed after this statement's snapshot are in neither part: read them now.
      return rows.length === endpointIds.length ? rows : existing().orderBy('id');
    },

    /** One delivery of one endpoint (the endpoint is already checked to be the caller's). */
    async findForEndpoint(endpointId: number, id: number): Promise<WebhookDeliveryRow | undefined> {
      return withEventType().where({ 'd.id': id, 'd.endpoint_id': endpointId }).where('d.created_at', '>=', withinRetention()).first();
    },

    /** Every attempt of a delivery, in order (the webhook_attempts unique key). */
    attemptsOf(deliveryId: number): Promise<WebhookAttemptRow[]> {
      return db('webhook_attempts')
        .where({ delivery_id: deliveryId })
        .orderBy('attempt_number')
        .select('attempt_number', 'started_at', 'duration_ms', 'status_code', 'error');
    },

    /**
     * The last 30 days, newest first (ids grow with creation), keyset-paginated on the id and
     * filtered by status, event type and creation time (indexes webhook_deliveries_endpoint_status_page,
     * _type_page and _id_page).
     */
    listForEndpoint(endpointId: number, limit: number, beforeId?: number, filters: DeliveryFilters = {}): Promise<WebhookDeliveryRow[]> {
      const query = withEventType()
        .where('d.endpoint_id', endpointId)
        .where('d.created_at', '>=', withinRetention())
        .orderBy('d.id', 'desc')
        .limit(limit);
      if (beforeId !== undefined) query.where('d.id', '<', beforeId);
      if (filters.status) query.where('d.status', filters.status);
      if (filters.eventType) query.where('d.event_type', filters.eventType);
      if (filters.since) query.where('d.created_at', '>=', filters.since);
      return query;
    },

    /**
     * Resends failed deliveries of an endpoint: one new pending delivery of the same event per
     * failed delivery that has none yet (webhook_deliveries_one_resend makes a repeated call add
     * nothing). `which` is one delivery id, or every failed delivery created since a time. Nothing
     * happens for an endpoint of another company.
     * Returns the resends of the chosen deliveries that are still pending, new or not, so that a
     * repeated call also starts any whose workflow was never started.
     */
    async resendFailed(companyId: number, endpointId: number, which: { deliveryId: number } | { since: Date }): Promise<ResendRef[]> {
      const choose = (query: ReturnType<typeof db>, alias: string) => {
        query.where(`${alias}.endpoint_id`, endpointId).where(`${alias}.created_at`, '>=', withinRetention());
        if ('deliveryId' in which) query.where(`${alias}.id`, which.deliveryId);
        else query.where(`${alias}.created_at`, '>=', which.since);
        return query;
      };
      return db.transaction(async (trx) => {
        // A write on behalf of a client: the endpoint must be the company's.
        if (!(await trx('webhook_endpoints').where({ id: endpointId, company_id: companyId }).first('id'))) return [];
        const failed = choose(trx('webhook_deliveries as d'), 'd')
          .where('d.status', 'failed')
          .whereNotExists(trx('webhook_deliveries as x').whereRaw('x.resend_of = d.id'))
          .orderBy('d.id')
          .select('d.endpoint_id', 'd.event_id', 'd.event_type', trx.raw('d.id as resend_of'), trx.raw('now() as next_attempt_at'));
        await trx.raw(
          `INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, resend_of, next_attempt_at) ?
           ON CONFLICT (resend_of) WHERE resend_of IS NOT NULL DO NOTHING`,
          [failed],
        );
        return choose(trx('webhook_deliveries as d'), 'd')
          .join('webhook_deliveries as r', 'r.resend_of', 'd.id')
          .where('r.status', 'pending')
          .orderBy('r.id')
          .select<ResendRef[]>('r.id', 'r.endpoint_id', 'r.event_id', 'r.resend_of');
      });
    },

    /**
     * Records an attempt and the delivery's new status. A failed delivery is flagged
     * outcome_pending until its endpoint's entity has counted it (markOutcomesCounted).
     * counterUnaffected: this attempt delivered the delivery while its endpoint's counter is 0
     * with no failure still uncounted, read in the same statement, so reporting it to the entity
     * could change nothing (docs/decisions/0011-lean-webhook-pipeline.md). A failure recorded
     * before this statement is either uncounted (flagged) or counted (the counter, or a later
     * reset); one recorded after it is after this success too.
     */
    async recordAttempt(record: AttemptRecord, finalAttempt: boolean): Promise<{ status: DeliveryStatus; counterUnaffected: boolean }> {
      const status: DeliveryStatus = record.succeeded ? 'delivered' : finalAttempt ? 'failed' : 'pending';
      // One statement (atomic without a transaction: one round trip instead of four). Its
      // subqueries read the snapshot from before the statement, as the RETURNING of an UPDATE does:
      // counter_clear and current_status are as they were before this attempt; event_created_at
      // is for the emit→receipt latency.
      const { rows } = await db.raw<{ rows: { recorded: boolean; moved_status: DeliveryStatus | null; counter_clear: boolean | null; event_created_at: Date | null; current_status: DeliveryStatus | null }[] }>(
        `WITH recorded AS (
           INSERT INTO webhook_attempts (delivery_id, attempt_number, started_at, duration_ms, status_code, error)
           VALUES (:deliveryId, :attempt, :startedAt, :durationMs, :statusCode, :error)
           ON CONFLICT (delivery_id, attempt_number) DO NOTHING
           RETURNING attempt_number
         ), moved AS (
           UPDATE webhook_deliveries
              SET status = :status, attempts = greatest(attempts, :attempt), last_status_code = :statusCode,
                  last_error = :error, next_attempt_at = :nextAttemptAt, outcome_pending = :outcomePending, updated_at = now()
            WHERE id = :deliveryId AND status = 'pending'
            RETURNING status, endpoint_id, event_id
         ), late AS (
           -- Ended by the API (endpoint disabled or deleted: failAllPending) while this attempt was
           -- in flight, so before it was counted (attempts < this one). What the receiver answered
           -- still happened: a 2xx delivered it (a recover would send it again otherwise), and the
           -- attempt counts either way, so attempts agrees with attempt_history. The entity hears
           -- nothing of it (reported as already finished, below): its endpoint is off.
           UPDATE webhook_deliveries
              SET status = CASE WHEN :succeeded THEN 'delivered' ELSE status END,
                  attempts = greatest(attempts, :attempt), last_status_code = :statusCode,
                  last_error = CASE WHEN :succeeded THEN NULL ELSE last_error END,
                  outcome_pending = CASE WHEN :succeeded THEN false ELSE outcome_pending END, updated_at = now()
            WHERE id = :deliveryId AND status = 'failed' AND attempts < :attempt
            RETURNING status
         )
         SELECT EXISTS (SELECT 1 FROM recorded) AS recorded,
                moved.status AS moved_status,
                (SELECT e.consecutive_failures = 0 AND NOT EXISTS (
                   SELECT 1 FROM webhook_deliveries p WHERE p.endpoint_id = e.id AND p.outcome_pending)
                   FROM webhook_endpoints e WHERE e.id = moved.endpoint_id) AS counter_clear,
                (SELECT created_at FROM events WHERE events.id = moved.event_id) AS event_created_at,
                coalesce((SELECT status FROM late), (SELECT d.status FROM webhook_deliveries d WHERE d.id = :deliveryId)) AS current_status
           FROM (SELECT 1) AS one LEFT JOIN moved ON true`,
        {
          deliveryId: record.deliveryId,
          attempt: record.attempt,
          startedAt: record.startedAt,
          durationMs: Math.round(record.durationMs),
          statusCode: record.statusCode,
          error: record.error,
          status,
          succeeded: record.succeeded,
          nextAttemptAt: status === 'pending' ? record.nextAttemptAt : null,
          outcomePending: status === 'failed',
        },
      ).options(PREPARED);
      const row = rows[0]!;
      // Counted once committed, and only for what this call changed: a retried activity whose
      // attempt row and status change are already there counts nothing.
      const moved = row.moved_status ? { status: row.moved_status as string, eventCreatedAt: row.event_created_at as Date } : null;
      if (row.recorded) countDeliveryAttempt({ succeeded: record.succeeded, receivedAt: new Date(record.startedAt.getTime() + record.durationMs) }, moved);
      // Already finished (a repeated record): report as before, whatever it was.
      if (!row.moved_status) return { status: row.current_status ?? 'failed', counterUnaffected: false };
      return { status: row.moved_status, counterUnaffected: row.moved_status === 'delivered' && row.counter_clear === true };
    },

    /**
     * What an attempt needs, in one round trip: its endpoint (null if gone), its delivery's status
     * (null if gone) and its event's payload (null if gone). Ids come from the delivery workflow,
     * which got them from rows of one company.
     */
    async attemptContext(deliveryId: number, endpointId: number, eventId: string): Promise<AttemptContext> {
      const { rows } = await db.raw<{ rows: (Partial<WebhookEndpointRow> & { endpoint_id: number | null; delivery_status: DeliveryStatus | null; payload: string | null })[] }>(
        `SELECT e.id AS endpoint_id, e.company_id, e.url, e.secrets, e.enabled, e.deleted_at,
                (SELECT d.status FROM webhook_deliveries d WHERE d.id = :deliveryId) AS delivery_status,
                (SELECT ev.payload FROM events ev WHERE ev.id = :eventId) AS payload
           FROM (SELECT 1) AS one LEFT JOIN webhook_endpoints e ON e.id = :endpointId`,
        { deliveryId, endpointId, eventId },
      ).options(PREPARED);
      const row = rows[0]!;
      return {
        endpoint: row.endpoint_id === null ? null : { company_id: row.company_id!, url: row.url!, secrets: row.secrets!, enabled: row.enabled!, deleted_at: row.deleted_at ?? null },
        deliveryStatus: row.delivery_status,
        payload: row.payload,
      };
    },

    /** The endpoint's entity has counted these failed deliveries (after mirroring its counter). */
    async markOutcomesCounted(endpointId: number, deliveryIds: number[]): Promise<void> {
      if (deliveryIds.length === 0) return;
      await db('webhook_deliveries').where({ endpoint_id: endpointId, outcome_pending: true }).whereIn('id', deliveryIds).update({ outcome_pending: false });
    },

    /** Ends a delivery without (further) attempts, e.g. its endpoint is disabled or gone. */
    async failIfPending(id: number, reason: string): Promise<void> {
      const changed = await db('webhook_deliveries')
        .where({ id, status: 'pending' })
        .update({ status: 'failed', next_attempt_at: null, last_error: reason, updated_at: db.fn.now() });
      countDelivery('failed', changed);
    },

    async failAllPending(endpointId: number, reason: string): Promise<{ id: number; event_id: string; resend_of: number | null }[]> {
      const failed = await db('webhook_deliveries')
        .where({ endpoint_id: endpointId, status: 'pending' })
        .update({ status: 'failed', next_attempt_at: null, last_error: reason, updated_at: db.fn.now() })
        .returning(['id', 'event_id', 'resend_of']);
      countDelivery('failed', failed.length);
      return failed;
    },

    /** Retention: deliveries (and their attempts) older than 30 days, in bounded batches. */
    async purgeExpired(batchSize = 5000): Promise<number> {
      return deleteOlderThan(db, 'webhook_deliveries', `${DELIVERY_RETENTION_DAYS} days`, batchSize);
    },
  };
}

export type WebhookDeliveriesRepository = ReturnType<typeof createWebhookDeliveriesRepository>;
