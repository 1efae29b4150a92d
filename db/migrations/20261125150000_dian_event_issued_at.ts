import type { Knex } from 'knex';

/**
 * The instant a buyer event is issued (its cbc:IssueDate/IssueTime, hashed into its CUDE, and
 * its XAdES SigningTime) is fixed when its first attempt signs it, and every retry reuses it
 * (docs/dian.md, "Issue date"). Events already signed keep the instant they were signed with,
 * their created_at until now, so a retry still sends the same CUDE; events never attempted get
 * theirs at their first attempt.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('dian_events', (t) => {
    t.timestamp('issued_at', { useTz: true });
  });
  await knex('dian_events').whereNotNull('signed_xml_blob_key').orWhereNot('status', 'pending').update({ issued_at: knex.ref('created_at') });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
