import type { Database } from '../connection';
import { deleteOlderThan } from '../retention';

export type IdempotentRequestRow = {
  id: number;
  fingerprint: string;
  request_line: string;
  response_status: number | null;
  response_sealed: string | null;
};

type IdempotentRequestsTable = IdempotentRequestRow & { api_key_id: string; idempotency_key: string; created_at: Date; claimed_at: Date; created_id: string | null };

export type IdempotentClaim = { claimed: true; id: number } | { claimed: false; existing: IdempotentRequestRow };

/**
 * How long an answer is replayed (Stripe: 24 hours), after how long a claim not renewed is deemed
 * its crashed process's, and how often a running request renews its claim (well within that).
 */
export const IDEMPOTENCY_WINDOW = { keepHours: 24, abandonedAfterSeconds: 60, renewEverySeconds: 15 } as const;

/** The answers to POSTs sent with an Idempotency-Key (api/middleware/idempotent-requests.ts), per API key. */
export function createIdempotentRequestsRepository(db: Database) {
  const table = () => db<IdempotentRequestsTable>('idempotent_requests');
  return {
    /**
     * Takes the key for a request about to run, or returns who holds it. The key's answers older
     * than the window are dropped first, so a key can be used again after 24 hours.
     */
    async claim(apiKeyId: string, idempotencyKey: string, fingerprint: string, requestLine: string): Promise<IdempotentClaim> {
      await table().where({ api_key_id: apiKeyId }).where('created_at', '<', db.raw(`now() - interval '${IDEMPOTENCY_WINDOW.keepHours} hours'`)).delete();
      const inserted = await table()
        .insert({ api_key_id: apiKeyId, idempotency_key: idempotencyKey, fingerprint, request_line: requestLine })
        .onConflict(['api_key_id', 'idempotency_key'])
        .ignore()
        .returning('id');
      if (inserted.length > 0) return { claimed: true, id: Number(inserted[0]!.id) };
      const existing = await table()
        .where({ api_key_id: apiKeyId, idempotency_key: idempotencyKey })
        .first('id', 'fingerprint', 'request_line', 'response_status', 'response_sealed');
      // Expired and dropped between the two statements by a concurrent claim: take it again.
      return existing ? { claimed: false, existing } : this.claim(apiKeyId, idempotencyKey, fingerprint, requestLine);
    },

    /** A claim whose request never finished (its process died): taken over when older than the window's limit. */
    async takeOverAbandoned(apiKeyId: string, id: number): Promise<boolean> {
      const taken = await table()
        .where({ id, api_key_id: apiKeyId })
        .whereNull('response_status')
        .where('claimed_at', '<', db.raw(`now() - interval '${IDEMPOTENCY_WINDOW.abandonedAfterSeconds} seconds'`))
        .update({ claimed_at: db.fn.now() });
      return taken === 1;
    },

    /**
     * The running request's process is alive: its claim is taken again, so no retry takes it
     * over while the request runs, however long (a request held by a stalled Temporal or Postgres).
     */
    async renew(apiKeyId: string, id: number): Promise<void> {
      await table().where({ id, api_key_id: apiKeyId }).whereNull('response_status').update({ claimed_at: db.fn.now() });
    },

    /** Keeps the answer; createdId: the id of what a 201 created, for forgetCreation. */
    async complete(apiKeyId: string, id: number, status: number, sealedAnswer: string, createdId: string | null): Promise<void> {
      await table().where({ id, api_key_id: apiKeyId }).update({ response_status: status, response_sealed: sealedAnswer, created_id: createdId });
    },

    /**
     * The resource `createdId` made by `requestLine` (`POST /v1/…`) was deleted: the answers that
     * created it are forgotten, whichever API key sent them (each could see it), so a retry with
     * one of their keys creates anew instead of answering with an id that no longer exists.
     */
    async forgetCreation(requestLine: string, createdId: string): Promise<void> {
      await table().where({ request_line: requestLine, created_id: createdId }).delete();
    },

    /**
     * Retention: answers past the window, whichever API key they belong to, in bounded batches.
     * A key's own expired answers also go when it is used again (claim); this drops those of
     * keys that are not, with the credentials some answers carry.
     */
    async purgeExpired(batchSize = 5000): Promise<number> {
      return deleteOlderThan(db, 'idempotent_requests', `${IDEMPOTENCY_WINDOW.keepHours} hours`, batchSize);
    },

    /** The request failed: nothing is kept, so a retry with the key runs it again. */
    async release(apiKeyId: string, id: number): Promise<void> {
      await table().where({ id, api_key_id: apiKeyId }).whereNull('response_status').delete();
    },
  };
}

export type IdempotentRequestsRepository = ReturnType<typeof createIdempotentRequestsRepository>;
