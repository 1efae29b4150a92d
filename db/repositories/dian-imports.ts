import type { Database } from '../connection';
import { countDianImportRun } from '../../config/outcome-metrics';
import { updateStatus } from '../status-change';

export type DianImportDocumentType = 'invoice' | 'credit_note' | 'all';
export type DianImportSource = 'dian_web_service' | 'dian_export_file';

export type DianImportRow = {
  id: number;
  company_id: number;
  /** PENDING → PROCESSING → DONE | ERROR */
  status: 'PENDING' | 'PROCESSING' | 'DONE' | 'ERROR';
  source: DianImportSource;
  document_type: DianImportDocumentType;
  begin_date: string;
  end_date: string;
  found_count: number;
  electronic_invoices_count: number;
  credit_notes_count: number;
  skipped_count: number;
  /** CUFEs from an uploaded DIAN export (source dian_export_file). */
  requested_cufes: string[] | null;
  error_code: string | null;
  error_message: string | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type NewDianImport = Pick<DianImportRow, 'company_id' | 'source' | 'document_type' | 'begin_date' | 'end_date' | 'requested_cufes'>;

export type DianImportCounts = Pick<DianImportRow, 'found_count' | 'electronic_invoices_count' | 'credit_notes_count' | 'skipped_count'>;

/** Dates stay 'YYYY-MM-DD' strings (the pg driver would make local-midnight Dates of them). */
const columns = (db: Database) => [
  '*',
  db.raw(`to_char(begin_date, 'YYYY-MM-DD') AS begin_date`),
  db.raw(`to_char(end_date, 'YYYY-MM-DD') AS end_date`),
];

export function createDianImportsRepository(db: Database) {
  return {
    async insert(record: NewDianImport): Promise<DianImportRow> {
      const [{ id }] = await db('dian_imports')
        .insert({ ...record, requested_cufes: record.requested_cufes ? JSON.stringify(record.requested_cufes) : null })
        .returning('id');
      return (await this.findById(id as number))!;
    },

    findById(id: number): Promise<DianImportRow | undefined> {
      return db('dian_imports').select(columns(db)).where({ id }).first();
    },

    find(companyId: number, id: number): Promise<DianImportRow | undefined> {
      return db('dian_imports').select(columns(db)).where({ company_id: companyId, id }).first();
    },

    listForCompany(companyId: number, limit: number, beforeId?: number): Promise<DianImportRow[]> {
      const query = db('dian_imports').select(columns(db)).where({ company_id: companyId }).orderBy('id', 'desc').limit(limit);
      if (beforeId !== undefined) query.where('id', '<', beforeId);
      return query;
    },

    /** Whether the company already holds a document with this CUFE/CUDE (documents_company_cufe). */
    async companyHasCufe(companyId: number, cufe: string): Promise<boolean> {
      const row = await db('documents').where({ company_id: companyId }).whereIn('cufe', [...new Set([cufe, cufe.toLowerCase()])]).first('id');
      return row !== undefined;
    },

    /** Documents created by the files of this run: invoices, credit notes, and all of them (documents_imported_file index). */
    async createdCounts(importId: number): Promise<{ electronic_invoices_count: number; credit_notes_count: number; total: number }> {
      const rows = await db('documents as d')
        .join('uploaded_files as f', 'f.id', 'd.imported_file_id')
        .where('f.dian_importation_id', importId)
        .groupBy('d.document_type')
        .select('d.document_type', db.raw('count(*)::int AS n'));
      const count = (type: string) => (rows.find((row) => row.document_type === type)?.n as number | undefined) ?? 0;
      const total = rows.reduce((sum, row) => sum + (row.n as number), 0);
      return { electronic_invoices_count: count('electronic_invoice'), credit_notes_count: count('credit_note'), total };
    },

    /** Keeps the listing of a run, so batches (and a resumed run) read the same CUFEs. */
    async storeListing(id: number, cufes: string[]): Promise<void> {
      await db('dian_imports').where({ id }).whereNull('requested_cufes').update({ requested_cufes: JSON.stringify(cufes), updated_at: db.fn.now() });
    },

    /**
     * Adds one window's CUFEs to the run's listing (DIAN's bulk download, window by window),
     * without duplicates, so a retried window adds nothing twice. Returns the listing's length.
     */
    async appendListing(id: number, cufes: string[]): Promise<number> {
      return db.transaction(async (trx) => {
        const row = await trx('dian_imports').select('requested_cufes').where({ id }).forUpdate().first();
        if (!row) throw new Error(`DIAN import ${id} does not exist`);
        const listing = [...new Set([...((row.requested_cufes as string[] | null) ?? []), ...cufes])];
        await trx('dian_imports').where({ id }).update({ requested_cufes: JSON.stringify(listing), updated_at: trx.fn.now() });
        return listing.length;
      });
    },

    async markProcessing(id: number): Promise<void> {
      await db('dian_imports').where({ id }).where('status', 'PENDING').update({ status: 'PROCESSING', updated_at: db.fn.now() });
    },

    async finish(id: number, counts: DianImportCounts): Promise<void> {
      const changes = { ...counts, status: 'DONE', error_code: null, error_message: null, completed_at: db.fn.now(), updated_at: db.fn.now() };
      const row = await updateStatus<Pick<DianImportRow, 'source'>>(db, 'dian_imports', id, changes, ['source']);
      if (row && row.previous_status !== 'DONE') countDianImportRun(row.source, 'done', counts);
    },

    /** Ends a run stopped before its outcome (cancelled, or its workflow ended without one). */
    async failIfUnfinished(id: number, code: string, message: string): Promise<void> {
      await db('dian_imports').where({ id }).whereIn('status', ['PENDING', 'PROCESSING']).update({
        status: 'ERROR', error_code: code, error_message: message.slice(0, 2000), completed_at: db.fn.now(), updated_at: db.fn.now(),
      });
    },

    async fail(id: number, code: string, message: string, counts?: Partial<DianImportCounts>): Promise<void> {
      const row = await updateStatus<Pick<DianImportRow, 'source'>>(db, 'dian_imports', id, {
        ...(counts ?? {}), status: 'ERROR', error_code: code, error_message: message.slice(0, 2000), completed_at: db.fn.now(), updated_at: db.fn.now(),
      }, ['source']);
      if (row && row.previous_status !== 'ERROR') countDianImportRun(row.source, 'failed', counts);
    },
  };
}

export type DianImportsRepository = ReturnType<typeof createDianImportsRepository>;
