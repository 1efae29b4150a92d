import type { Knex } from 'knex';

/**
 * The whole domain of docs/../shared spec in one first migration: companies and API keys,
 * contacts, documents of the four kinds with their files and export reference, uploaded files,
 * tax-authority imports, exports, tax-authority events, webhook endpoints, events, deliveries
 * and attempts. Forward-only: later changes are new migrations.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('companies', (t) => {
    t.bigIncrements('id');
    t.text('name').notNullable();
    t.text('nit').notNullable().unique();
    t.text('dv').notNullable();
    t.text('person_type').notNullable().defaultTo('LEGAL');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE companies ADD CONSTRAINT companies_nit_digits CHECK (nit ~ '^[0-9]{5,15}$')`);
  await knex.raw(`ALTER TABLE companies ADD CONSTRAINT companies_dv_digit CHECK (dv ~ '^[0-9]$')`);

  await knex.schema.createTable('api_keys', (t) => {
    t.text('id').primary(); // the public key_id embedded in the key itself
    t.text('name').notNullable();
    t.text('prefix').notNullable();
    t.binary('secret_hash').notNullable(); // SHA-256 of the secret part; the secret itself is never stored
    t.specificType('scopes', 'text[]').notNullable();
    t.text('role').notNullable();
    t.boolean('all_companies').notNullable();
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('last_used_at', { useTz: true });
    t.timestamp('revoked_at', { useTz: true });
  });
  await knex.raw(`ALTER TABLE api_keys ADD CONSTRAINT api_keys_role CHECK (role IN ('admin', 'member'))`);

  await knex.schema.createTable('api_key_companies', (t) => {
    t.text('api_key_id').notNullable().references('api_keys.id').onDelete('CASCADE');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.primary(['api_key_id', 'company_id']);
    t.index(['company_id']);
  });

  await knex.schema.createTable('contacts', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('id_type').notNullable().defaultTo('31'); // DIAN identification type code; 31 = NIT
    t.text('id_number').notNullable();
    t.text('dv');
    t.text('name').notNullable();
    t.text('email');
    t.text('phone');
    t.text('address');
    t.text('city');
    t.text('country_code');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['company_id', 'id_type', 'id_number']);
  });
  await knex.raw('CREATE INDEX contacts_company_page ON contacts (company_id, id DESC)');

  await knex.schema.createTable('dian_imports', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('PENDING');
    t.text('source').notNullable();
    t.text('document_type').notNullable();
    t.date('begin_date').notNullable();
    t.date('end_date').notNullable();
    t.integer('found_count').notNullable().defaultTo(0);
    t.integer('electronic_invoices_count').notNullable().defaultTo(0);
    t.integer('credit_notes_count').notNullable().defaultTo(0);
    t.integer('skipped_count').notNullable().defaultTo(0);
    t.text('error_code');
    t.text('error_message');
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX dian_imports_company_page ON dian_imports (company_id, id DESC)');

  await knex.schema.createTable('uploaded_files', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('type').notNullable(); // UPLOAD | API | EMAIL | DIAN
    t.text('status').notNullable().defaultTo('PENDING');
    t.text('file_name').notNullable();
    t.text('extension').notNullable();
    t.text('content_type').notNullable();
    t.bigInteger('size').notNullable();
    t.text('sha256').notNullable();
    t.text('blob_key').notNullable();
    t.text('kind_hint'); // payment_claim_account | foreign_invoice for bare PDFs
    t.bigInteger('dian_importation_id').references('dian_imports.id').onDelete('SET NULL');
    t.text('idempotency_key');
    t.text('error_code');
    t.text('error_message');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['company_id', 'idempotency_key']);
    t.index(['dian_importation_id']);
  });
  await knex.raw('CREATE INDEX uploaded_files_company_page ON uploaded_files (company_id, id DESC)');

  await knex.schema.createTable('documents', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    // electronic_invoice | credit_note | payment_claim_account | foreign_invoice | debit_note
    t.text('document_type').notNullable();
    t.text('kind').notNullable().defaultTo('purchase'); // purchase | sale, the spec's `kind`
    t.text('number');
    t.text('cufe'); // CUFE for invoices, CUDE for notes
    t.timestamp('issued_at', { useTz: true });
    t.date('due_date');
    t.bigInteger('contact_id').references('contacts.id').onDelete('SET NULL');
    t.decimal('sub_total', 18, 2);
    t.decimal('vat', 18, 2);
    t.decimal('total', 18, 2);
    t.text('currency');
    t.jsonb('supplier');
    t.jsonb('customer');
    t.jsonb('lines');
    t.text('referenced_document_number');
    t.text('referenced_document_cufe');
    t.jsonb('dian_validation');
    t.boolean('synced').notNullable().defaultTo(false);
    t.timestamp('synced_at', { useTz: true });
    t.text('export_integration');
    t.text('export_external_id');
    t.text('export_external_number');
    t.text('export_external_name');
    t.timestamp('exported_at', { useTz: true });
    t.boolean('export_marked_manually');
    t.bigInteger('imported_file_id').references('uploaded_files.id').onDelete('SET NULL');
    // The original file: absent for documents created by hand or from a spreadsheet.
    t.text('original_blob_key');
    t.text('original_file_name');
    t.text('original_extension');
    t.text('original_content_type');
    t.bigInteger('original_size');
    // Where a PDF comes from: the original itself, a PDF found inside the ZIP, or one generated once.
    t.text('pdf_blob_key');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE documents ADD CONSTRAINT documents_type CHECK (document_type IN
    ('electronic_invoice', 'credit_note', 'payment_claim_account', 'foreign_invoice', 'debit_note'))`);
  await knex.raw(`ALTER TABLE documents ADD CONSTRAINT documents_kind CHECK (kind IN ('purchase', 'sale'))`);
  await knex.raw('CREATE UNIQUE INDEX documents_company_cufe ON documents (company_id, cufe) WHERE cufe IS NOT NULL');
  // Keyset pagination of every document collection: newest first, ties broken by id.
  await knex.raw(
    'CREATE INDEX documents_company_type_page ON documents (company_id, document_type, issued_at DESC, id DESC)',
  );
  await knex.raw('CREATE INDEX documents_contact ON documents (contact_id)');
  await knex.raw('CREATE INDEX documents_imported_file ON documents (imported_file_id)');

  await knex.schema.createTable('integrations', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('name').notNullable();
    t.text('provider').notNullable();
    t.binary('credentials_encrypted');
    t.jsonb('settings').notNullable().defaultTo('{}');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['company_id', 'name']);
  });

  await knex.schema.createTable('exports', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.bigInteger('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    t.text('integration').notNullable();
    t.text('export_kind').notNullable().defaultTo('electronic_invoice');
    t.text('status').notNullable().defaultTo('pending');
    t.text('external_id');
    t.text('external_number');
    t.text('external_name');
    t.text('error_code');
    t.text('error_message');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX exports_company_page ON exports (company_id, id DESC)');
  await knex.raw('CREATE INDEX exports_document ON exports (document_id, id DESC)');

  await knex.schema.createTable('dian_events', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.bigInteger('document_id').notNullable().references('documents.id').onDelete('CASCADE');
    t.text('event').notNullable();
    t.text('status').notNullable().defaultTo('pending');
    t.boolean('succeeded');
    t.text('cude');
    t.text('error_code');
    t.text('error_message');
    t.timestamp('completed_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(`ALTER TABLE dian_events ADD CONSTRAINT dian_events_event CHECK (event IN ('030', '032', '033'))`);
  await knex.raw('CREATE INDEX dian_events_document ON dian_events (document_id, id DESC)');
  // At most one successful registration of each event per document.
  await knex.raw('CREATE UNIQUE INDEX dian_events_one_success ON dian_events (document_id, event) WHERE succeeded');

  await knex.schema.createTable('webhook_endpoints', (t) => {
    t.bigIncrements('id');
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('url').notNullable();
    t.specificType('events', 'text[]').notNullable(); // empty = every event type, present and future
    t.boolean('enabled').notNullable().defaultTo(true);
    t.integer('consecutive_failures').notNullable().defaultTo(0);
    // [{secret_encrypted, valid_until}], newest first; old secrets sign for 24 h after a rotation.
    t.jsonb('secrets').notNullable();
    t.timestamp('disabled_at', { useTz: true });
    t.timestamp('deleted_at', { useTz: true });
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw(
    'CREATE INDEX webhook_endpoints_company_page ON webhook_endpoints (company_id, id DESC) WHERE deleted_at IS NULL',
  );

  await knex.schema.createTable('events', (t) => {
    t.uuid('id').primary();
    t.bigInteger('company_id').notNullable().references('companies.id').onDelete('CASCADE');
    t.text('type').notNullable();
    t.jsonb('data').notNullable();
    t.timestamp('created_at', { useTz: true, precision: 6 }).notNullable().defaultTo(knex.fn.now());
  });
  await knex.raw('CREATE INDEX events_company_recent ON events (company_id, created_at DESC)');
  await knex.raw('CREATE INDEX events_created_at ON events (created_at)');

  await knex.schema.createTable('webhook_deliveries', (t) => {
    t.bigIncrements('id');
    t.bigInteger('endpoint_id').notNullable().references('webhook_endpoints.id').onDelete('CASCADE');
    t.uuid('event_id').notNullable().references('events.id').onDelete('CASCADE');
    t.text('status').notNullable().defaultTo('pending');
    t.integer('attempts').notNullable().defaultTo(0);
    t.timestamp('next_attempt_at', { useTz: true });
    t.integer('last_status_code');
    t.text('last_error');
    t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    t.unique(['endpoint_id', 'event_id']);
  });
  await knex.raw(`ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_status
    CHECK (status IN ('pending', 'delivered', 'failed'))`);
  await knex.raw(
    'CREATE INDEX webhook_deliveries_endpoint_page ON webhook_deliveries (endpoint_id, created_at DESC, id DESC)',
  );
  await knex.raw(
    `CREATE INDEX webhook_deliveries_endpoint_pending ON webhook_deliveries (endpoint_id) WHERE status = 'pending'`,
  );
  await knex.raw('CREATE INDEX webhook_deliveries_retention ON webhook_deliveries (created_at)');

  await knex.schema.createTable('webhook_attempts', (t) => {
    t.bigIncrements('id');
    t.bigInteger('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
    t.integer('attempt_number').notNullable();
    t.timestamp('started_at', { useTz: true }).notNullable();
    t.integer('duration_ms').notNullable();
    t.integer('status_code');
    t.text('error');
    t.unique(['delivery_id', 'attempt_number']);
  });
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only; restore from a backup instead of rolling back.');
}
