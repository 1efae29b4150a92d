import type { Knex } from 'knex';
import type { Database } from '../connection';
import type { DocumentType } from '../../domain/documents/collections';
import type { StoredAccounting } from '../../domain/documents/accounting';
import { roundDecimal } from '../../domain/ubl/amounts';
import type { DianEnvironment } from '../../domain/dian/catalogue';
import type { CodeScheme, DianDocumentType, UblDocument, UblReference } from '../../domain/ubl/types';
import { totalsInconsistencies, type TotalsWarning } from '../../domain/ubl/totals-consistency';

type DocumentRowBase = {
  id: number;
  company_id: number;
  document_type: DocumentType;
  kind: 'purchase' | 'sale';
  number: string | null;
  cufe: string | null;
  issued_at: Date;
  due_date: string | null;
  contact_id: number | null;
  /** The first document a note corrects (kept for the API's referenced_document); referenced_documents holds them all. */
  referenced_document_number: string | null;
  referenced_document_cufe: string | null;
  /** Every document a note corrects, in reading order (cac:BillingReference); empty without any. */
  referenced_documents: UblReference[];
  /** DIAN's type (electronic_invoice, pos_equivalent, support_document, …), type code and code scheme; null for a bare PDF. */
  dian_document_type: DianDocumentType | null;
  dian_type_code: string | null;
  code_scheme: CodeScheme | null;
  /** Which DIAN environment validated it (cbc:ProfileExecutionID); 'unspecified' when the XML does not say, null when not read yet or no XML. */
  dian_environment: DianEnvironment | typeof UNSPECIFIED_ENVIRONMENT | null;
  /** What is wrong with the document as written (totals that contradict each other); [] when checked and consistent, null when never checked (no XML, or stored before 20261125170000). */
  warnings: TotalsWarning[] | null;
  synced: boolean;
  synced_at: Date | null;
  export_integration: string | null;
  export_external_id: string | null;
  export_external_number: string | null;
  export_external_name: string | null;
  exported_at: Date | null;
  export_marked_manually: boolean | null;
  imported_file_id: number | null;
  original_blob_key: string | null;
  original_file_name: string | null;
  original_extension: string | null;
  original_content_type: string | null;
  original_size: number | null;
  original_zip_pdf_entry: string | null;
  pdf_blob_key: string | null;
  created_at: Date;
  updated_at: Date;
  /** issued_at with microseconds, for keyset cursors (a JS Date keeps only milliseconds). */
  issued_at_key: string;
  contact_name: string | null;
  contact_id_number: string | null;
};

export type DocumentRow = DocumentRowBase & StoredAccounting;

export type UnclassifiedDocument = { id: number; cufe: string; original_blob_key: string; original_content_type: string | null };

export type DocumentFilters = {
  issuedFrom?: Date;
  /** Exclusive upper bound. */
  issuedBefore?: Date;
  synced?: boolean;
  contactId?: number;
  kind?: 'purchase' | 'sale';
  /** true: flagged (at least one warning); false: not flagged (none, or never checked). */
  hasWarnings?: boolean;
};

export type NewDocument = Partial<Omit<DocumentRowBase & Pick<StoredAccounting, 'sub_total' | 'vat' | 'total' | 'currency'>, 'id' | 'created_at' | 'updated_at' | 'issued_at_key' | 'contact_name' | 'contact_id_number' | 'referenced_documents' | 'warnings'>> & {
  company_id: number;
  /** JSON text of the UblReference list (a JS array would be written as a Postgres array, not jsonb). */
  referenced_documents?: string;
  /** JSON text of the warnings list, for the same reason. */
  warnings?: string;
  document_type: DocumentType;
  issued_at: Date;
};

/** Stored for a DIAN document without a ProfileExecutionID of 1 or 2, so NULL keeps meaning "not read yet". */
export const UNSPECIFIED_ENVIRONMENT = 'unspecified';

/**
 * DIAN type, the documents it corrects, the accounting extras and the warnings about its totals
 * (checked on the amounts as written, before any rounding); jsonb amounts rounded to 2 decimals
 * like the numeric(18,2) columns.
 */
export function dianColumns(ubl: UblDocument) {
  const money = (value: string) => roundDecimal(value, 2);
  const [firstReference] = ubl.referencedDocuments;
  return {
    referenced_document_number: firstReference?.number ?? null,
    referenced_document_cufe: firstReference?.cufe ?? null,
    referenced_documents: JSON.stringify(ubl.referencedDocuments),
    dian_document_type: ubl.dianDocumentType,
    dian_type_code: ubl.typeCode,
    code_scheme: ubl.codeScheme,
    dian_environment: ubl.dianEnvironment ?? UNSPECIFIED_ENVIRONMENT,
    taxes: JSON.stringify(ubl.taxes.map((t) => ({ ...t, taxableAmount: money(t.taxableAmount), taxAmount: money(t.taxAmount) }))),
    withholdings: JSON.stringify(ubl.withholdings.map((w) => ({ ...w, taxableAmount: money(w.taxableAmount), taxAmount: money(w.taxAmount) }))),
    allowance_charges: JSON.stringify(
      ubl.allowanceCharges.map((a) => ({ ...a, amount: money(a.amount), baseAmount: a.baseAmount === null ? null : money(a.baseAmount) })),
    ),
    prepaid_payments: JSON.stringify(ubl.prepaidPayments.map((p) => ({ ...p, paidAmount: money(p.paidAmount) }))),
    prepaid_amount: ubl.prepaidAmount,
    allowance_total: ubl.allowanceTotalAmount,
    charge_total: ubl.chargeTotalAmount,
    payable_rounding_amount: ubl.payableRoundingAmount,
    tax_rounding_amount: ubl.taxRoundingAmount,
    exchange_rate: ubl.exchangeRate?.rate ?? null,
    exchange_source_currency: ubl.exchangeRate?.sourceCurrency ?? null,
    exchange_target_currency: ubl.exchangeRate?.targetCurrency ?? null,
    exchange_rate_date: ubl.exchangeRate?.date ?? null,
    warnings: JSON.stringify(totalsInconsistencies(ubl)),
  };
}

export function createDocumentsRepository(db: Database) {
  const withContact = (query: Knex.QueryBuilder) =>
    query
      .leftJoin('contacts as c', 'c.id', 'd.contact_id')
      .select(
        'd.*',
        'c.name as contact_name',
        'c.id_number as contact_id_number',
        db.raw(`to_char(d.issued_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS issued_at_key`),
      );

  return {
    async insert(document: NewDocument): Promise<number> {
      const [row] = await db('documents').insert(document).returning('id');
      return row.id as number;
    },

    /**
     * One page, newest first with ties broken by id, continuing strictly after `after`
     * ([issued_at_key, id]). Keyset on documents_company_type_page: no OFFSET at any depth.
     */
    async list(companyId: number, type: DocumentType, filters: DocumentFilters, limit: number, after?: [string, number]): Promise<DocumentRow[]> {
      const query = withContact(db('documents as d'))
        .where({ 'd.company_id': companyId, 'd.document_type': type })
        .orderBy([{ column: 'd.issued_at', order: 'desc' }, { column: 'd.id', order: 'desc' }])
        .limit(limit);
      if (filters.issuedFrom) query.where('d.issued_at', '>=', filters.issuedFrom);
      if (filters.issuedBefore) query.where('d.issued_at', '<', filters.issuedBefore);
      if (filters.synced !== undefined) query.where('d.synced', filters.synced);
      if (filters.contactId !== undefined) query.where('d.contact_id', filters.contactId);
      if (filters.kind) query.where('d.kind', filters.kind);
      // The partial index documents_company_type_warned_page has this predicate word for word.
      if (filters.hasWarnings === true) query.whereRaw(`jsonb_array_length(d.warnings) > 0`);
      if (filters.hasWarnings === false) query.whereRaw(`COALESCE(jsonb_array_length(d.warnings), 0) = 0`);
      if (after) query.whereRaw('(d.issued_at, d.id) < (?::timestamptz, ?)', after);
      return query;
    },

    async find(companyId: number, type: DocumentType, id: number): Promise<DocumentRow | undefined> {
      return withContact(db('documents as d')).where({ 'd.company_id': companyId, 'd.document_type': type, 'd.id': id }).first();
    },

    /**
     * DIAN documents whose original has not been read by this version of the parser and is
     * stored, by id: imported before migration 20261125120000 (their tax breakdown, NULL, was
     * never recorded; those imported before 20261123080000 lack their type code too) or before
     * 20261125140000 (their DIAN environment, NULL, was never recorded) or 20261125170000 (their
     * totals, warnings NULL, were never checked).
     */
    unclassified(afterId: number, limit: number, companyId?: number): Promise<UnclassifiedDocument[]> {
      return db('documents')
        .modify((query) => {
          if (companyId !== undefined) query.where({ company_id: companyId });
        })
        .whereNotNull('cufe')
        .where((unread) => unread.whereNull('taxes').orWhereNull('dian_environment').orWhereNull('warnings'))
        .whereNotNull('original_blob_key')
        .where('id', '>', afterId)
        .orderBy('id')
        .limit(limit)
        .select('id', 'cufe', 'original_blob_key', 'original_content_type');
    },

    /** Records the DIAN type and accounting fields parsed from a document's original. */
    async setDianFields(id: number, ubl: UblDocument): Promise<void> {
      await db('documents').where({ id }).update({ ...dianColumns(ubl), updated_at: db.fn.now() });
    },

    async setPdfBlobKey(id: number, key: string): Promise<void> {
      await db('documents').where({ id }).update({ pdf_blob_key: key, updated_at: db.fn.now() });
    },
  };
}

export type DocumentsRepository = ReturnType<typeof createDocumentsRepository>;
