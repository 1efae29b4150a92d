import type { Knex } from 'knex';

/**
 * `retryable_failures`: how many attempts of a buyer event DIAN failed with a failure worth
 * retrying (network, timeout, HTTP 5xx: `dian_unavailable`, `dian_timeout`, …), the count its 8
 * attempts (activities/dian-events.ts DIAN_EVENT_ATTEMPTS) are measured by. Temporal's attempt
 * number also counts the attempts a dependency of ours that was down (Postgres, the blob store)
 * ended, so an outage of about 15 minutes used them up and ended the event failed, although
 * nothing was wrong with DIAN or the event. Events already recorded start at 0 (an attempt
 * already scheduled keeps the retry policy it was scheduled with, 8 attempts in all).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dian_events', (t) => {
    t.integer('retryable_failures').notNullable().defaultTo(0);
    // The workflow run the count belongs to: an operator's reset starts a new run, whose attempts
    // get 8 of their own again (as they did when Temporal's attempt number was the count).
    t.text('retryable_failures_run');
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
