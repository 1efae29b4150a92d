import type { Database } from '../connection';
import { countEndpointDisabled } from '../../config/outcome-metrics';
import type { CompanyAccess } from '../../domain/company-access';
import { columnsOf } from '../columns';
import { PREPARED } from '../prepared-statement';

/** A secret sealed with the SecretBox; expires_at is set on the old secret by a rotation. */
export type StoredSecret = { sealed: string; created_at: string; expires_at: string | null };

export type WebhookEndpointRow = {
  id: number;
  company_id: number;
  url: string;
  events: string[];
  enabled: boolean;
  consecutive_failures: number;
  secrets: StoredSecret[];
  disabled_at: Date | null;
  deleted_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

const ENDPOINT_COLUMNS = columnsOf<WebhookEndpointRow>({
  id: true, company_id: true, url: true, events: true, enabled: true, consecutive_failures: true, secrets: true, disabled_at: true,
  deleted_at: true, created_at: true, updated_at: true,
});

export type EndpointChanges = Partial<Pick<WebhookEndpointRow, 'url' | 'events'>>;

export function createWebhookEndpointsRepository(db: Database) {
  const live = () => db<WebhookEndpointRow>('webhook_endpoints').whereNull('deleted_at');
  /** Writes on behalf of a client name the company, so an id of another company changes nothing (undefined). */
  const owned = (companyId: number, id: number) => live().where({ company_id: companyId, id });

  return {
    /**
     * A new endpoint, unless the company already has `limit` live ones (null then). The company
     * row is locked for the count and the insert, so concurrent requests cannot pass the limit
     * together.
     */
    async insertWithinLimit(companyId: number, limit: number, url: string, events: string[], secret: StoredSecret): Promise<WebhookEndpointRow | null> {
      return db.transaction(async (trx) => {
        await trx('companies').where({ id: companyId }).forUpdate().first('id');
        const [{ count }] = await trx('webhook_endpoints').whereNull('deleted_at').where({ company_id: companyId }).count<{ count: number }[]>({ count: '*' });
        if (Number(count) >= limit) return null;
        const [row] = await trx<WebhookEndpointRow>('webhook_endpoints')
          .insert({ company_id: companyId, url, events, secrets: JSON.stringify([secret]) as never })
          .returning('*');
        return row;
      });
    },

    /** An endpoint through the key's company access: invisible ones are indistinguishable from missing ones. */
    async findVisible(access: CompanyAccess, id: number): Promise<WebhookEndpointRow | undefined> {
      const query = live().where({ id });
      if (!access.allCompanies) query.whereIn('company_id', access.companyIds);
      return query.first();
    },

    /** Newest first; `beforeId` continues after the last id of the previous page. */
    listForCompany(companyId: number, limit: number, beforeId?: number): Promise<WebhookEndpointRow[]> {
      const query = live().where({ company_id: companyId }).orderBy('id', 'desc').limit(limit);
      if (beforeId !== undefined) query.where('id', '<', beforeId);
      return query;
    },

    async update(companyId: number, id: number, changes: EndpointChanges): Promise<WebhookEndpointRow | undefined> {
      const [row] = await owned(companyId, id).update({ ...changes, updated_at: db.fn.now() as never }).returning('*');
      return row;
    },

    /** PATCH enabled: true resets the counter (spec); enabled: false is a manual pause. */
    async setEnabled(companyId: number, id: number, enabled: boolean): Promise<WebhookEndpointRow | undefined> {
      const changes = enabled
        ? { enabled: true, consecutive_failures: 0, disabled_at: null }
        : { enabled: false, disabled_at: db.fn.now() };
      const [row] = await owned(companyId, id).update({ ...changes, updated_at: db.fn.now() } as never).returning('*');
      return row;
    },

    /**
     * Replaces the secrets with what `change` makes of the current ones, under the row's lock:
     * two rotations at once apply one after the other (each sees the other's secret), so every
     * secret an answer showed is kept; read-then-write without it lost one of them.
     */
    async changeSecrets<Result>(
      companyId: number,
      id: number,
      change: (current: StoredSecret[]) => { stored: StoredSecret[]; result: Result },
    ): Promise<{ row: WebhookEndpointRow; result: Result } | undefined> {
      return db.transaction(async (trx) => {
        const locked = await trx<WebhookEndpointRow>('webhook_endpoints').whereNull('deleted_at').where({ company_id: companyId, id }).forUpdate().first('secrets');
        if (!locked) return undefined;
        const { stored, result } = change(locked.secrets);
        const [row] = await trx<WebhookEndpointRow>('webhook_endpoints')
          .where({ company_id: companyId, id })
          .update({ secrets: JSON.stringify(stored) as never, updated_at: db.fn.now() as never })
          .returning('*');
        return { row: row!, result };
      });
    },

    async softDelete(companyId: number, id: number): Promise<void> {
      await owned(companyId, id).update({ deleted_at: db.fn.now() as never, enabled: false, updated_at: db.fn.now() as never });
    },

    /** Internal (activities): the endpoint as it is now, deleted ones included so callers can tell. */
    findById(id: number): Promise<WebhookEndpointRow | undefined> {
      return db<WebhookEndpointRow>('webhook_endpoints').where({ id }).first();
    },

    /** Every published event reads these (prepared). */
    enabledForCompany(companyId: number): Promise<WebhookEndpointRow[]> {
      return live().where({ company_id: companyId, enabled: true }).select(ENDPOINT_COLUMNS).options(PREPARED);
    },

    /** Internal (the endpoint's entity workflow, which only knows the id it was started for). */
    async mirrorConsecutiveFailures(id: number, consecutiveFailures: number): Promise<void> {
      await db('webhook_endpoints').where({ id }).update({ consecutive_failures: consecutiveFailures });
    },

    /** Internal: automatic deactivation by the entity workflow; false when it was already disabled or deleted. */
    async disable(id: number, consecutiveFailures: number): Promise<boolean> {
      const changed = await live()
        .where({ id, enabled: true })
        .update({ enabled: false, consecutive_failures: consecutiveFailures, disabled_at: db.fn.now() as never, updated_at: db.fn.now() as never });
      if (changed > 0) countEndpointDisabled();
      return changed > 0;
    },
  };
}

export type WebhookEndpointsRepository = ReturnType<typeof createWebhookEndpointsRepository>;
