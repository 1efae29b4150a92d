import { randomUUID } from 'node:crypto';
import type { Database } from '../connection';
import { deleteOlderThan } from '../retention';

export type IdempotentRequestRow = {
  id: number;
  fingerprint: string;
  request_line: string;
  response_status: number | null;
  response_sealed: string | null;
};

type IdempotentRequestsTable = IdempotentRequestRow & { api_key_id: string; idempotency_key: string; created_at: Date; claimed_at: Date; created_id: string | null; claim_token: string | null };

/** A claim held by this request: `token` proves it still holds it (renew, complete, release). */
export type HeldClaim = { id: number; token: string };
export type IdempotentClaim = ({ claimed: true } & HeldClaim) | { claimed: false; existing: IdempotentRequestRow };

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
      const token = randomUUID();
      const inserted = await table()
        .insert({ api_key_id: apiKeyId, idempotency_key: idempotencyKey, fingerprint, request_line: requestLine, claim_token: token })
        .onConflict(['api_key_id', 'idempotency_key'])
        .ignore()
        .returning('id');
      if (inserted.length > 0) return { claimed: true, id: Number(inserted[0]!.id), token };
      const existing = await table()
        .where({ api_key_id: apiKeyId, idempotency_key: idempotencyKey })
        .first('id', 'fingerprint', 'request_line', 'response_status', 'response_sealed');
      // Expired and dropped between the two statements by a concurrent claim: take it again.
      return existing ? { claimed: false, existing } : this.claim(apiKeyId, idempotencyKey, fingerprint, requestLine);
    },

    /**
     * A claim whose request never finished (its process died): taken over when older than the
     * window's limit, under a new token, so the old holder (a process that was only frozen) can no
     * longer renew, answer for or release it. Null when it is not abandoned.
     */
    async takeOverAbandoned(apiKeyId: string, id: number): Promise<HeldClaim | null> {
      const token = randomUUID();
      const taken = await table()
        .where({ id, api_key_id: apiKeyId })
        .whereNull('response_status')
        .where('claimed_at', '<', db.raw(`now() - interval '${IDEMPOTENCY_WINDOW.abandonedAfterSeconds} seconds'`))
        .update({ claimed_at: db.fn.now(), claim_token: token });
      return taken === 1 ? { id, token } : null;
    },

    /**
     * The running request's process is alive: its claim is taken again, so no retry takes it
     * over while the request runs, however long (a request held by a stalled Temporal or Postgres).
     * False when the claim is no longer this request's (taken over, or answered).
     */
    async renew(apiKeyId: string, claim: HeldClaim): Promise<boolean> {
      const renewed = await table().where({ id: claim.id, api_key_id: apiKeyId, claim_token: claim.token }).whereNull('response_status').update({ claimed_at: db.fn.now() });
      return renewed === 1;
    },

    /**
     * Keeps the answer; createdId: the id of what a 201 created, for forgetCreation. False when the
     * claim was taken over meanwhile: the answer of the request that holds it now is the one kept.
     */
    async complete(apiKeyId: string, claim: HeldClaim, status: number, sealedAnswer: string, createdId: string | null): Promise<boolean> {
      const kept = await table()
        .where({ id: claim.id, api_key_id: apiKeyId, claim_token: claim.token })
        .whereNull('response_status')
        .update({ response_status: status, response_sealed: sealedAnswer, created_id: createdId });
      return kept === 1;
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

    /** The request failed: nothing is kept, so a retry with the key runs it again (unless another request holds the claim now). */
    async release(apiKeyId: string, claim: HeldClaim): Promise<void> {
      await table().where({ id: claim.id, api_key_id: apiKeyId, claim_token: claim.token }).whereNull('response_status').delete();
    },
  };
}

export type IdempotentRequestsRepository = ReturnType<typeof createIdempotentRequestsRepository>;
