import type { Knex } from 'knex';

/**
 * The events DIAN has registered against a received invoice, as GetStatusEvent lists them
 * (docs/dian.md, "Events registered elsewhere"): those sent through DIAN's portal or another
 * provider's software included. Refreshed asynchronously (after an import, and by
 * POST …/dian-events/sync), so the API's order checks read them without calling DIAN.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('dian_registered_events', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.bigInteger('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    t.text('event').notNullable();
    t.text('description').notNullable().defaultTo('');
    t.text('cude');
    /** DIAN's EffectiveDate (Colombian day); null when DIAN gives none. */
    t.date('effective_date');
    t.timestamp('synced_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE UNIQUE INDEX dian_registered_events_key ON dian_registered_events (document_id, event, COALESCE(cude, \'\'))');
  await knex.schema.alterTable('documents', (t) => {
    t.timestamp('dian_events_synced_at', { useTz: true });
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
