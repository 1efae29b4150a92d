import type { Knex } from 'knex';

/**
 * Collision-proof DIAN event numbers (docs/dian.md, "Event numbers"). DIAN keys duplicate
 * events by sender NIT + event type + event number (cbc:ID), so the number must never repeat one
 * the company used in other software: it is a configurable prefix
 * (company_dian_settings.event_number_prefix, null = the default) plus a per-company sequence
 * (dian_event_sequences, allocated atomically by an upsert). dian_events.number and .sequence fix
 * both when the event is created, so every retry sends the same CUDE and file name.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('company_dian_settings', (t) => {
    t.text('event_number_prefix');
  });
  await knex.schema.createTable('dian_event_sequences', (t) => {
    t.bigInteger('company_id').primary().references('companies.id').onDelete('CASCADE');
    t.bigInteger('last_value').notNullable();
  });
  await knex.schema.alterTable('dian_events', (t) => {
    t.text('number');
    t.bigInteger('sequence');
  });
  await knex.raw('CREATE UNIQUE INDEX dian_events_company_number ON dian_events (company_id, number) WHERE number IS NOT NULL');
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
