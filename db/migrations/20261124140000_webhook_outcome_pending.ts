import type { Knex } from 'knex';

/**
 * outcome_pending: the delivery failed (its last attempt failed) and its endpoint's entity
 * workflow has not yet counted that failure (set with the failed status in the same statement,
 * cleared by the entity with the counter it mirrors). A delivered delivery skips its outcome
 * signal only when its endpoint's counter is 0 and no failure is still uncounted
 * (docs/decisions/0011-lean-webhook-pipeline.md); the partial index keeps that check one probe.
 * Existing failed deliveries were counted under the old rule: false.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('webhook_deliveries', (t) => {
    t.boolean('outcome_pending').notNullable().defaultTo(false);
  });
  await knex.raw('CREATE INDEX webhook_deliveries_outcome_pending ON webhook_deliveries (endpoint_id) WHERE outcome_pending');
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
