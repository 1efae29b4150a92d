import type { Knex } from 'knex';

/**
 * `adopted_number`: the number (cbc:ID) of the earlier attempt an event adopted instead of
 * sending itself (activities/dian-events.ts registeredEarlierAttempt: DIAN already held that
 * attempt, its answer lost), which is the number DIAN holds and the one in the event's signed
 * file. The event keeps its own `number`, never sent (the company's numbers stay unique, as
 * dian_events_company_number requires); the API shows the adopted one. Null for every other event.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dian_events', (t) => {
    t.text('adopted_number');
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
