import type { Knex } from 'knex';

/**
 * CUFE/CUDE/CUDS are stored in lower case from now on (domain/ubl/document.ts canonicalUniqueCode):
 * they are the hex of a SHA-384, and the one-document-per-CUFE index (documents_company_cufe)
 * compares exactly, so an upper-case copy of a stored document was a second document. The codes
 * already stored in upper case are lowered too, so a new upload finds them; where the company
 * already holds the lower-case twin (the duplicate this fixes), or two spellings of one code, only
 * the one the index allows is lowered and the others stay as they are, for an operator to merge.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    UPDATE documents d SET cufe = lower(d.cufe)
    WHERE d.cufe ~ '[A-F]' AND d.cufe ~ '^[0-9A-Fa-f]+$'
      AND NOT EXISTS (SELECT 1 FROM documents t WHERE t.company_id = d.company_id AND t.cufe = lower(d.cufe))
      AND d.id = (SELECT min(s.id) FROM documents s WHERE s.company_id = d.company_id AND lower(s.cufe) = lower(d.cufe))`);
  await knex.raw(`
    UPDATE documents SET referenced_document_cufe = lower(referenced_document_cufe)
    WHERE referenced_document_cufe ~ '[A-F]' AND referenced_document_cufe ~ '^[0-9A-Fa-f]+$'`);
}

export async function down(): Promise<void> {
  throw new Error('Migrations are forward-only.');
}
