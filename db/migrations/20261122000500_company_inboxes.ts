import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Every company gets an e-mail inbox: `<inbox_token>@<INBOX_DOMAIN>` (docs/email-intake.md).
 * Existing companies get a random token here (80 bits from the OS CSPRNG, like new ones get
 * from the companies repository); then the column becomes NOT NULL and unique.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('companies', (t) => {
    t.text('inbox_token');
  });
  const rows = await knex('companies').whereNull('inbox_token').select<{ id: number }[]>('id');
  for (const { id } of rows) {
    await knex('companies').where({ id }).update({ inbox_token: randomBytes(10).toString('hex') });
  }
  await knex.schema.alterTable('companies', (t) => {
    t.dropNullable('inbox_token');
    t.unique(['inbox_token']);
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
