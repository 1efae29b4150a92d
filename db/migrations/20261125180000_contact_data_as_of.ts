import type { Knex } from 'knex';

/**
 * `data_as_of`: the issue instant of the newest document whose data the contact carries. An
 * import changes a contact's data only with a document at least that new; an older one (a DIAN
 * import of last year's invoices, a late upload) only fills what the contact lacks. Before it, the
 * last document imported won whatever its date, so an old invoice renamed a supplier to its old
 * name. NULL for the contacts stored before this migration: their next document sets it.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('contacts', (t) => {
    t.timestamp('data_as_of', { useTz: true });
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
