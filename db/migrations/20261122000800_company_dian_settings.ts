import type { Knex } from 'knex';

/**
 * Per-company DIAN settings (docs/dian.md): the environment, the software registered with DIAN
 * and the signing certificate. The PIN, the PKCS#12 (base64) and its password are sealed with
 * the SecretBox (AES-256-GCM under SECRETS_ENCRYPTION_KEY) and never returned by the API.
 * Also dian_events.issuer: the person who issues a 030/032 event (cac:IssuerParty/cac:Person),
 * and dian_imports.requested_cufes: the CUFEs read from an uploaded DIAN export (source
 * dian_export_file; null when the run lists DIAN itself).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('company_dian_settings', (t) => {
    t.bigInteger('company_id').primary().references('companies.id').onDelete('CASCADE');
    t.text('environment').notNullable();
    t.text('software_id').notNullable();
    t.text('software_pin_sealed').notNullable();
    t.text('certificate_p12_sealed').notNullable();
    t.text('certificate_password_sealed').notNullable();
    // Not secret: what GET …/dian-settings shows, read once from the PKCS#12 when it is stored.
    t.text('certificate_subject').notNullable();
    t.text('certificate_issuer').notNullable();
    t.timestamp('certificate_not_after', { useTz: true }).notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE company_dian_settings ADD CONSTRAINT company_dian_settings_environment
    CHECK (environment IN ('habilitacion', 'produccion', 'simulator'))`);
  await knex.schema.alterTable('dian_events', (t) => {
    t.jsonb('issuer');
  });
  await knex.schema.alterTable('dian_imports', (t) => {
    t.jsonb('requested_cufes');
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
