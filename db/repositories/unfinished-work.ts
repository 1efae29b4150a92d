import type { Database } from '../connection';

/** A pending delivery: enough to name its workflow (services/start-deliveries.ts). */
export type PendingDeliveryRef = { id: number; endpoint_id: number; event_id: string; resend_of: number | null };

/** A pending delivery never attempted, with what its workflow is started with: its event's company and type. */
export type UnstartedDelivery = PendingDeliveryRef & { event_type: string; company_id: number };

/**
 * A failed delivery its endpoint's entity never counted (outcome_pending), with what a recount
 * needs: `moot` when counting it now would be wrong or pointless — a delivery to the same
 * endpoint was delivered after it failed (and reset the count), or the endpoint is disabled
 * (re-enabling starts from 0) or deleted.
 */
export type UncountedFailure = { id: number; endpoint_id: number; company_id: number; moot: boolean };

/**
 * Every company's work still unfinished after `olderThanSeconds`, oldest first, for the
 * operators' reconciliation (services/reconcile-stopped-work.ts): not on behalf of a client, so
 * not company-scoped. Each list reads a partial index on created_at of its unfinished rows
 * (migration 20261124130000).
 */
export function createUnfinishedWorkRepository(db: Database) {
  /** Rows of `table` (read as `alias`) in one of `statuses`, created more than `olderThanSeconds` ago, oldest first. */
  const olderThan = (table: string, statuses: string[], olderThanSeconds: number, limit: number, alias = table) =>
    db(alias === table ? table : `${table} as ${alias}`)
      .whereIn(`${alias}.status`, statuses)
      .where(`${alias}.created_at`, '<', db.raw('now() - make_interval(secs => ?)', [olderThanSeconds]))
      .orderBy(`${alias}.created_at`)
      .limit(limit);
  const ids = async (query: ReturnType<typeof olderThan>) => (await query.select('id')).map((row: { id: number }) => row.id);

  return {
    deliveries: (olderThanSeconds: number, limit: number): Promise<PendingDeliveryRef[]> =>
      olderThan('webhook_deliveries', ['pending'], olderThanSeconds, limit).select('id', 'endpoint_id', 'event_id', 'resend_of'),
    /**
     * Pending deliveries with no attempt, created more than `olderThanSeconds` ago, in id order
     * after `afterId` (webhook_deliveries_unstarted, migration 20261124170000). The company is the
     * event's, and the endpoint must belong to it: a delivery is started only for its own tenant.
     */
    unstartedDeliveries: (olderThanSeconds: number, limit: number, afterId = 0): Promise<UnstartedDelivery[]> =>
      db('webhook_deliveries as d')
        .join('events as e', 'e.id', 'd.event_id')
        .join('webhook_endpoints as w', function joinEndpoint() {
          this.on('w.id', '=', 'd.endpoint_id').andOn('w.company_id', '=', 'e.company_id');
        })
        .where('d.status', 'pending')
        .where('d.attempts', 0)
        .where('d.created_at', '<', db.raw('now() - make_interval(secs => ?)', [olderThanSeconds]))
        .where('d.id', '>', afterId)
        .orderBy('d.id')
        .limit(limit)
        .select('d.id', 'd.endpoint_id', 'd.event_id', 'd.resend_of', 'd.event_type', 'e.company_id'),
    /**
     * Failed deliveries still flagged uncounted `olderThanSeconds` after they failed, oldest
     * first (webhook_deliveries_outcome_pending; the later success through
     * webhook_deliveries_endpoint_status_page). The entity counts an outcome within moments, so
     * these are outcomes that never reached it: entity runs before the patch
     * 'settle-before-continue-as-new' could drop one (docs/webhooks.md).
     */
    uncountedFailures: (olderThanSeconds: number, limit: number): Promise<UncountedFailure[]> =>
      db('webhook_deliveries as d')
        .join('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
        .where('d.outcome_pending', true)
        .where('d.updated_at', '<', db.raw('now() - make_interval(secs => ?)', [olderThanSeconds]))
        .orderBy('d.updated_at')
        .limit(limit)
        .select(
          'd.id',
          'd.endpoint_id',
          'w.company_id',
          db.raw(
            `(w.deleted_at IS NOT NULL OR NOT w.enabled OR EXISTS (
               SELECT 1 FROM webhook_deliveries s
                WHERE s.endpoint_id = d.endpoint_id AND s.status = 'delivered' AND s.updated_at > d.updated_at)) AS moot`,
          ),
        ),
    /**
     * Pending exports, DIAN events and DIAN import runs older than `olderThanSeconds` that never
     * ran a step (an export with no attempt, an event never signed), with what their workflow is
     * started with (services/work-starts.ts), for the resume of work recorded but never started
     * (services/resume-stranded-work.ts): one that ran is never started again, even once Temporal
     * has forgotten its workflow. A DIAN event's invoice is read with the company's scope.
     */
    pendingExports: (olderThanSeconds: number, limit: number): Promise<{ id: number; company_id: number; document_id: number }[]> =>
      olderThan('exports', ['pending'], olderThanSeconds, limit).where('exports.attempts', 0).select('id', 'company_id', 'document_id'),
    pendingDianEvents: (olderThanSeconds: number, limit: number): Promise<{ id: number; company_id: number; document_id: number; event: string; cufe: string | null }[]> =>
      olderThan('dian_events', ['pending'], olderThanSeconds, limit, 'e')
        .whereNull('e.issued_at')
        .join('documents as d', function sameCompany() {
          this.on('d.id', '=', 'e.document_id').andOn('d.company_id', '=', 'e.company_id');
        })
        .select('e.id', 'e.company_id', 'e.document_id', 'e.event', 'd.cufe'),
    pendingDianImports: (olderThanSeconds: number, limit: number): Promise<{ id: number; company_id: number }[]> =>
      olderThan('dian_imports', ['PENDING'], olderThanSeconds, limit).select('id', 'company_id'),
    exports: (olderThanSeconds: number, limit: number) => ids(olderThan('exports', ['pending'], olderThanSeconds, limit)),
    dianEvents: (olderThanSeconds: number, limit: number) => ids(olderThan('dian_events', ['pending'], olderThanSeconds, limit)),
    dianImports: (olderThanSeconds: number, limit: number) => ids(olderThan('dian_imports', ['PENDING', 'PROCESSING'], olderThanSeconds, limit)),
  };
}
