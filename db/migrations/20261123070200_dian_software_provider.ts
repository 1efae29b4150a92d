import type { Knex } from 'knex';

/**
 * The technology provider whose software sends the company's events (sts:ProviderID): a
 * company using a provider's software registers the provider's NIT with DIAN. Null = the
 * company's own NIT (its own software). Also the stored artefacts of each event: the signed
 * ApplicationResponse and DIAN's answer, as blob keys (docs/dian.md).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('company_dian_settings', (t) => {
    t.text('software_provider_nit');
  });
  await knex.schema.alterTable('dian_events', (t) => {
    t.text('signed_xml_blob_key');
    t.text('dian_response_blob_key');
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
