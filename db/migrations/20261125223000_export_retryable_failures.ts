import type { Knex } from 'knex';

/**
 * `retryable_failures`: how many attempts of an export the accounting software failed with a
 * failure worth retrying (`unavailable`, `timeout`, `rate_limited`), the count its 8 attempts
 * (activities/exports.ts EXPORT_ATTEMPTS) are measured by. Temporal's attempt number also counts
 * the attempts a dependency of ours that was down (Postgres, the blob store, Temporal) ended, so
 * after a long outage the software's first retryable answer ended the export at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('exports', (t) => {
    t.integer('retryable_failures').notNullable().defaultTo(0);
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
