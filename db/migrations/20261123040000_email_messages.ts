import type { Knex } from 'knex';

/**
 * Every e-mailed message the SMTP intake stored, per recipient company: the per-company daily
 * quota counts these rows, and the retention job deletes the ones nothing was imported from
 * (docs/email-intake.md, "Limits and retention").
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('email_messages', (table) => {
    table.bigIncrements('id');
    table.bigInteger('company_id').notNullable().references('id').inTable('companies').onDelete('CASCADE');
    table.text('blob_key').notNullable().unique();
    table.bigInteger('bytes').notNullable();
    /** Uploaded files made from its attachments; 0 = kept only for the retention period. */
    table.integer('files').notNullable();
    table.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX email_messages_company_received ON email_messages (company_id, received_at)');
  await knex.raw('CREATE INDEX email_messages_unimportable ON email_messages (received_at) WHERE files = 0');
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
