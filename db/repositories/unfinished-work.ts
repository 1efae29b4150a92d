import type { Database } from '../connection';

/** A pending delivery: enough to name its workflow (services/start-deliveries.ts). */
export type PendingDeliveryRef = { id: number; endpoint_id: number; event_id: string; resend_of: number | null };

/**
 * Every company's work still unfinished after `olderThanSeconds`, oldest first, for the
 * operators' reconciliation (services/reconcile-stopped-work.ts): not on behalf of a client, so
 * not company-scoped. Each list reads a partial index on created_at of its unfinished rows
 * (migration 20261124130000).
 */
export function createUnfinishedWorkRepository(db: Database) {
  const olderThan = (table: string, statuses: string[], olderThanSeconds: number, limit: number) =>
    db(table)
      .whereIn('status', statuses)
      .where('created_at', '<', db.raw('now() - make_interval(secs => ?)', [olderThanSeconds]))
      .orderBy('created_at')
      .limit(limit);
  const ids = async (query: ReturnType<typeof olderThan>) => (await query.select('id')).map((row: { id: number }) => row.id);

  return {
    deliveries: (olderThanSeconds: number, limit: number): Promise<PendingDeliveryRef[]> =>
      olderThan('webhook_deliveries', ['pending'], olderThanSeconds, limit).select('id', 'endpoint_id', 'event_id', 'resend_of'),
    exports: (olderThanSeconds: number, limit: number) => ids(olderThan('exports', ['pending'], olderThanSeconds, limit)),
    dianEvents: (olderThanSeconds: number, limit: number) => ids(olderThan('dian_events', ['pending'], olderThanSeconds, limit)),
    dianImports: (olderThanSeconds: number, limit: number) => ids(olderThan('dian_imports', ['PENDING', 'PROCESSING'], olderThanSeconds, limit)),
  };
}
