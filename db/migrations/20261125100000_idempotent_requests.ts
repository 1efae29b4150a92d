import type { Knex } from 'knex';

/**
 * The first answer to each POST sent with an Idempotency-Key (api/middleware/idempotent-requests.ts),
 * per API key, kept 24 hours so that a retried request is answered with it instead of acting
 * twice. response_status is null while the first request runs; the answer is sealed
 * (SecretBox), since some carry secrets (a webhook endpoint's signing secret).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('idempotent_requests', (t) => {
    t.bigIncrements('id');
    t.text('api_key_id').notNullable().references('id').inTable('api_keys').onDelete('CASCADE');
    t.text('idempotency_key').notNullable();
    /** SHA-256 of the request line and its canonical JSON body: the same key with another request is a 409. */
    t.text('fingerprint').notNullable();
    /** `POST /v1/…`, for the 409's message. */
    t.text('request_line').notNullable();
    t.integer('response_status');
    t.text('response_sealed');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    /** When the running request took it: a claim older than a minute is a crashed process's, taken over. */
    t.timestamp('claimed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['api_key_id', 'idempotency_key']);
    // The 24-hour expiry, per key (idempotentRequests.claim).
    t.index(['api_key_id', 'created_at']);
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
