import type { Knex } from 'knex';
import type { Database } from '../connection';
import type { DocumentDraft } from '../../domain/ingestion/plan-import';
import type { UblParty } from '../../domain/ubl/types';
import { dianColumns } from './documents';
import { documentEntry } from '../../domain/documents/document-entry';
import { linkFileDocument, linkFileDocumentsSql, type ImportedDocumentRef, type UploadedFileRow } from './uploaded-files';
import { PREPARED } from '../prepared-statement';

export type ContactChange = { type: 'contact.created' | 'contact.updated'; contactId: number };

export type ImportResult = {
  created: { kind: string; id: number; cufe: string | null }[];
  skipped: UploadedFileRow['skipped'];
  contactChanges: ContactChange[];
  /** Every document linked to the file, created or already stored, once each in id order: what documentsOf would read. */
  documents: ImportedDocumentRef[];
};

/** The columns of a document its file's record shows (domain/documents/document-entry.ts), and the file that created it. */
const STORED_COLUMNS = ['id', 'document_type', 'cufe', 'dian_document_type', 'code_scheme', 'dian_environment', 'warnings', 'imported_file_id'] as const;

const CONTACT_FIELDS = ['dv', 'name', 'email', 'phone', 'address', 'city', 'country_code'] as const;

/**
 * Writes the documents of one uploaded file in one transaction. Idempotent: a CUFE already
 * stored for the company is skipped (unless this very file created it, which is what a retried
 * import finds), a document without a CUFE is found again when this file's earlier attempt wrote
 * it, and contacts are created once and updated only when their data changed.
 * Every document the file contains, created or already stored, is linked to the file.
 */
export function createImportsRepository(db: Database) {
  return {
    async importDrafts(file: UploadedFileRow, drafts: DocumentDraft[]): Promise<ImportResult> {
      return db.transaction(async (trx) => {
        const result: ImportResult = { created: [], skipped: [], contactChanges: [], documents: [] };
        const linked = new Map<number, ImportedDocumentRef>();
        for (const draft of drafts) {
          const contactId = draft.counterpart ? await upsertContact(trx, file.company_id, draft.counterpart, issuedAtOf(file, draft), result.contactChanges) : null;
          const cufe = draft.ubl?.cufe ?? null;
          const { document, linkedToFile } = await storedDocument(trx, file, draft, contactId);
          if (document.imported_file_id === file.id) result.created.push({ kind: document.document_type, id: document.id, cufe });
          else result.skipped.push({ cufe: cufe!, existing_document_id: document.id, kind: document.document_type });
          linked.set(document.id, documentEntry(document));
          if (!linkedToFile) await linkFileDocument(trx, file, document.id);
        }
        result.documents = [...linked.values()].sort((a, b) => a.id - b.id);
        return result;
      });
    },
  };
}

/**
 * The draft's document as stored, with the file that created it: this file's (inserted now, or
 * by an earlier attempt of its import) or another's whose CUFE it repeats. A document inserted
 * now is linked to its file by the same statement (linkedToFile); the others are linked by the
 * caller.
 */
async function storedDocument(trx: Knex.Transaction, file: UploadedFileRow, draft: DocumentDraft, contactId: number | null) {
  const cufe = draft.ubl?.cufe ?? null;
  const written = cufe === null ? await writtenByAnEarlierAttempt(trx, file, draft) : undefined;
  if (written) return { document: written, linkedToFile: false };
  const insert = trx('documents')
    .insert(documentRow(file, draft, contactId))
    .onConflict(trx.raw('(company_id, cufe) WHERE cufe IS NOT NULL'))
    .ignore()
    .returning(STORED_COLUMNS);
  const [inserted] = await trx
    .with('inserted', insert)
    // Typed parameters: in an INSERT … SELECT, Postgres does not take them from the target columns.
    .with('linked', trx.raw(linkFileDocumentsSql('SELECT ?::bigint, ?::bigint, id FROM inserted'), [file.company_id, file.id]))
    .select(...STORED_COLUMNS)
    .from('inserted')
    .options(PREPARED);
  if (inserted) return { document: inserted, linkedToFile: true };
  const repeated = await trx('documents').where({ company_id: file.company_id, cufe }).first(...STORED_COLUMNS).options(PREPARED);
  return { document: repeated, linkedToFile: false };
}

/**
 * A document without a CUFE (a bare PDF) has no unique key of its own: the one an earlier
 * attempt of this file's import wrote (committed, then the attempt was lost before the file was
 * DONE) is found by the file, the number and the ZIP entry, so a retried import does not store
 * it twice. Its file's documents (documents_imported_file) are few.
 */
async function writtenByAnEarlierAttempt(trx: Knex.Transaction, file: UploadedFileRow, draft: DocumentDraft) {
  return trx('documents')
    .where({ company_id: file.company_id, imported_file_id: file.id, document_type: draft.documentType, number: draft.ubl?.number ?? draft.fallbackNumber })
    .whereNull('cufe')
    .whereRaw('original_zip_pdf_entry IS NOT DISTINCT FROM ?', [draft.zipPdfEntry])
    .first(...STORED_COLUMNS)
    .options(PREPARED);
}

/** When the document was issued: as written in its UBL; a bare PDF's is its upload's. */
function issuedAtOf(file: UploadedFileRow, draft: DocumentDraft): Date {
  return draft.ubl ? new Date(draft.ubl.issuedAt) : file.created_at;
}

function documentRow(file: UploadedFileRow, draft: DocumentDraft, contactId: number | null) {
  const ubl = draft.ubl;
  return {
    company_id: file.company_id,
    document_type: draft.documentType,
    kind: draft.kind,
    number: ubl?.number ?? draft.fallbackNumber,
    cufe: ubl?.cufe ?? null,
    issued_at: issuedAtOf(file, draft),
    due_date: ubl?.dueDate ?? null,
    contact_id: contactId,
    sub_total: ubl?.subTotal ?? null,
    vat: ubl ? (ubl.vat ?? '0.00') : null,
    total: ubl?.total ?? null,
    currency: ubl?.currency ?? null,
    supplier: ubl ? JSON.stringify(ubl.supplier) : null,
    customer: ubl ? JSON.stringify(ubl.customer) : null,
    lines: ubl ? JSON.stringify(ubl.lines) : null,
    dian_validation: draft.validation ? JSON.stringify(draft.validation) : null,
    ...(ubl ? dianColumns(ubl) : {}),
    imported_file_id: file.id,
    original_blob_key: file.blob_key,
    original_file_name: file.file_name,
    original_extension: file.extension,
    original_content_type: file.content_type,
    original_size: file.size,
    original_zip_pdf_entry: draft.zipPdfEntry,
  };
}

/**
 * The document's counterpart as a contact of the company: created once, and updated with the data
 * the document carries when the document is at least as new as the data the contact has
 * (`data_as_of`, its issue instant). An older document only fills fields the contact lacks, so
 * importing last year's invoices never brings back a supplier's old name or address.
 */
async function upsertContact(
  trx: Knex.Transaction,
  companyId: number,
  party: UblParty,
  issuedAt: Date,
  changes: { type: 'contact.created' | 'contact.updated'; contactId: number }[],
): Promise<number> {
  const idType = party.idType ?? '31';
  const incoming = {
    dv: party.dv,
    name: party.name,
    email: party.email,
    phone: party.phone,
    address: party.address,
    city: party.city,
    country_code: party.countryCode,
  };
  // A company's suppliers and customers recur from document to document: look the contact up
  // first (one statement when it exists), insert only when it does not.
  let existing = await lockedContact(trx, companyId, idType, party.idNumber);
  if (!existing) {
    const [created] = await trx('contacts')
      .insert({ company_id: companyId, id_type: idType, id_number: party.idNumber, ...incoming, data_as_of: issuedAt })
      .onConflict(['company_id', 'id_type', 'id_number'])
      .ignore()
      .returning('id')
      .options(PREPARED);
    if (created) {
      changes.push({ type: 'contact.created', contactId: created.id });
      return created.id;
    }
    // A concurrent import inserted it meanwhile: update it like any other.
    existing = await lockedContact(trx, companyId, idType, party.idNumber);
  }
  const asOf: Date | null = existing.data_as_of;
  const atLeastAsNew = asOf === null || issuedAt.getTime() >= asOf.getTime();
  // Only data the document actually carries can change a contact; absent fields keep their value,
  // and an older document only fills fields the contact lacks.
  const changed = CONTACT_FIELDS.filter((field) => incoming[field] !== null && incoming[field] !== existing[field] && (atLeastAsNew || existing[field] === null));
  // A newer document with the same data still moves data_as_of, or an older one arriving next
  // would count as newer than what the contact was last confirmed by.
  const newer = asOf === null || issuedAt.getTime() > asOf.getTime();
  if (changed.length > 0 || newer) {
    const updates = Object.fromEntries(changed.map((field) => [field, incoming[field]]));
    await trx('contacts')
      .where({ id: existing.id, company_id: companyId })
      .update({ ...updates, ...(newer ? { data_as_of: issuedAt } : {}), updated_at: trx.fn.now() });
  }
  if (changed.length > 0 && !changes.some((change) => change.contactId === existing.id)) changes.push({ type: 'contact.updated', contactId: existing.id });
  return existing.id;
}

/** The contact with its data, locked until the import's transaction ends; undefined when there is none. */
function lockedContact(trx: Knex.Transaction, companyId: number, idType: string, idNumber: string) {
  return trx('contacts')
    .where({ company_id: companyId, id_type: idType, id_number: idNumber })
    .forUpdate()
    .first('id', 'data_as_of', ...CONTACT_FIELDS)
    .options(PREPARED);
}

export type ImportsRepository = ReturnType<typeof createImportsRepository>;
