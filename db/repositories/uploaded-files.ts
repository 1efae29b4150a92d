import type { Knex } from 'knex';
import type { Database } from '../connection';
import { countImport } from '../../config/outcome-metrics';
import { updateStatus } from '../status-change';
import { documentEntry, type DocumentEntry } from '../../domain/documents/document-entry';
import { columnsOf } from '../columns';
import { PREPARED, postgresIntArray } from '../prepared-statement';
import type { DianSettingsEnvironment } from './dian-settings';

export type UploadedFileRow = {
  id: number;
  company_id: number;
  type: 'UPLOAD' | 'API' | 'EMAIL' | 'DIAN';
  status: string;
  file_name: string;
  extension: string;
  content_type: string;
  size: number;
  sha256: string;
  blob_key: string;
  kind_hint: string | null;
  dian_importation_id: number | null;
  idempotency_key: string | null;
  error_code: string | null;
  error_message: string | null;
  /** Documents the import did not create because their CUFE was already stored. */
  skipped: { cufe: string; existing_document_id: number; kind: string }[];
  source_message_key: string | null;
  processed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export type NewUploadedFile = Pick<UploadedFileRow, 'company_id' | 'type' | 'file_name' | 'extension' | 'content_type' | 'size' | 'sha256' | 'blob_key'> &
  Partial<Pick<UploadedFileRow, 'status' | 'kind_hint' | 'dian_importation_id' | 'idempotency_key' | 'source_message_key' | 'processed_at' | 'created_at'>>;

/** A document an uploaded file created, as listed in the file record and the document.imported event. */
export type ImportedDocumentRef = DocumentEntry;

/** A file whose import is running, with its company's NIT and DIAN environment (markProcessing). */
export type ImportingFileRow = UploadedFileRow & { company_nit: string | null; dian_environment: DianSettingsEnvironment | null };

const UPLOADED_FILE_COLUMNS = columnsOf<UploadedFileRow>({
  id: true, company_id: true, type: true, status: true, file_name: true, extension: true, content_type: true, size: true, sha256: true,
  blob_key: true, kind_hint: true, dian_importation_id: true, idempotency_key: true, error_code: true, error_message: true, skipped: true,
  source_message_key: true, processed_at: true, created_at: true, updated_at: true,
});

/** Narrows a status change to imports still running (alias `t` of updateStatus). */
const whileUnfinished = (query: Knex.QueryBuilder) => void query.whereIn('t.status', ['PENDING', 'PROCESSING']);

/**
 * An import may end DONE unless an operator cancelled it: a run reset after a failure (ERROR
 * with another code) may still succeed, but a cancelled one told clients document.import_failed
 * and stays so even when its in-flight activity completes (docs/operations.md, steering).
 */
const unlessCancelled = (query: Knex.QueryBuilder) =>
  void query.where((statuses) => statuses.whereIn('t.status', ['PENDING', 'PROCESSING']).orWhereRaw("t.status = 'ERROR' and t.error_code is distinct from 'cancelled'"));

/**
 * The one SQL of a file's links to the documents it contains (uploaded_file_documents, once per
 * file and document: a link written again is kept once). `rows` gives (company_id, file_id,
 * document_id): a VALUES list, or a SELECT (imports.ts links a new document inside its insert).
 */
export function linkFileDocumentsSql(rows: string): string {
  return `INSERT INTO uploaded_file_documents (company_id, file_id, document_id) ${rows} ON CONFLICT (file_id, document_id) DO NOTHING`;
}

/**
 * The file contains this document, whether its import created it or found it stored. In the
 * caller's transaction when given one.
 */
export async function linkFileDocument(db: Knex, file: Pick<UploadedFileRow, 'id' | 'company_id'>, documentId: number): Promise<void> {
  await db.raw(linkFileDocumentsSql('VALUES (?, ?, ?)'), [file.company_id, file.id, documentId]).options(PREPARED);
}

export function createUploadedFilesRepository(db: Database) {
  return {
    async insert(file: NewUploadedFile): Promise<UploadedFileRow> {
      const [row] = await db<UploadedFileRow>('uploaded_files').insert(file).returning(UPLOADED_FILE_COLUMNS).options(PREPARED);
      return row;
    },

    find(companyId: number, id: number): Promise<UploadedFileRow | undefined> {
      return db<UploadedFileRow>('uploaded_files').where({ company_id: companyId, id }).first(UPLOADED_FILE_COLUMNS).options(PREPARED);
    },

    findById(id: number): Promise<UploadedFileRow | undefined> {
      return db<UploadedFileRow>('uploaded_files').where({ id }).first(UPLOADED_FILE_COLUMNS).options(PREPARED);
    },

    findByIdempotencyKey(companyId: number, key: string): Promise<UploadedFileRow | undefined> {
      return db<UploadedFileRow>('uploaded_files').where({ company_id: companyId, idempotency_key: key }).first(UPLOADED_FILE_COLUMNS).options(PREPARED);
    },

    listForCompany(companyId: number, limit: number, beforeId?: number): Promise<UploadedFileRow[]> {
      const query = db<UploadedFileRow>('uploaded_files').where({ company_id: companyId }).orderBy('id', 'desc').limit(limit);
      if (beforeId !== undefined) query.where('id', '<', beforeId);
      return query;
    },

    /**
     * The documents each file contains, for the Uploaded file record: the ones it created and the
     * ones already stored when it was imported (uploaded_file_documents, its primary key).
     */
    async documentsOf(fileIds: number[]): Promise<Map<number, ImportedDocumentRef[]>> {
      const rows = fileIds.length
        ? await db('uploaded_file_documents as l')
            .join('documents as d', function () {
              this.on('d.id', '=', 'l.document_id').andOn('d.company_id', '=', 'l.company_id');
            })
            .whereRaw('l.file_id = ANY(?::bigint[])', [postgresIntArray(fileIds)])
            .orderBy('d.id')
            .select('l.file_id', 'd.document_type', 'd.id', 'd.cufe', 'd.dian_document_type', 'd.code_scheme', 'd.dian_environment', 'd.warnings')
            .options(PREPARED)
        : [];
      const byFile = new Map<number, ImportedDocumentRef[]>();
      for (const row of rows) {
        const list = byFile.get(row.file_id) ?? [];
        list.push(documentEntry(row));
        byFile.set(row.file_id, list);
      }
      return byFile;
    },

    /** Records that the file contains a document created outside an import (the demo seed; an import links its own). */
    async linkDocument(file: Pick<UploadedFileRow, 'id' | 'company_id'>, documentId: number): Promise<void> {
      await linkFileDocument(db, file, documentId);
    },

    /** Uploads older than `olderThanSeconds` whose import has not finished (uploaded_files_unfinished). */
    async unfinished(olderThanSeconds: number, limit = 500): Promise<{ id: number; companyId: number; sizeBytes: number }[]> {
      const rows = await db('uploaded_files')
        .whereIn('status', ['PENDING', 'PROCESSING'])
        .where('created_at', '<', db.raw(`now() - make_interval(secs => ?)`, [olderThanSeconds]))
        .orderBy('created_at')
        .limit(limit)
        .select('id', 'company_id', 'size');
      return rows.map((row) => ({ id: row.id as number, companyId: row.company_id as number, sizeBytes: Number(row.size) }));
    },

    /**
     * Marks an unfinished import PROCESSING and returns its row, with what the import needs of its
     * company in the same round trip: the NIT (null when the company is gone) and the DIAN
     * environment (null without DIAN settings). Undefined when the import is finished (or absent).
     */
    async markProcessing(id: number): Promise<ImportingFileRow | undefined> {
      const marked = db('uploaded_files')
        .where({ id })
        .whereIn('status', ['PENDING', 'PROCESSING'])
        .update({ status: 'PROCESSING', updated_at: db.fn.now() })
        .returning(UPLOADED_FILE_COLUMNS);
      const [row] = await db
        .with('marked', marked)
        .from('marked')
        .leftJoin('companies as c', 'c.id', 'marked.company_id')
        .leftJoin('company_dian_settings as s', 's.company_id', 'marked.company_id')
        .select('marked.*', 'c.nit as company_nit', 's.environment as dian_environment')
        .options(PREPARED);
      return row as ImportingFileRow | undefined;
    },

    /**
     * A running or failed import ends DONE; one cancelled meanwhile (failIfUnfinished) stays ERROR.
     * Returns the row as written, undefined when it stayed as it was.
     */
    async markDone(id: number, skipped: UploadedFileRow['skipped']): Promise<UploadedFileRow | undefined> {
      const changes = { status: 'DONE', skipped: JSON.stringify(skipped), error_code: null, error_message: null, processed_at: db.fn.now(), updated_at: db.fn.now() };
      const row = await updateStatus<UploadedFileRow>(db, 'uploaded_files', id, changes, UPLOADED_FILE_COLUMNS, unlessCancelled);
      if (!row) return undefined;
      const { previous_status: previousStatus, ...file } = row;
      if (previousStatus !== 'DONE') countImport(row.type, 'imported');
      return file;
    },

    /** Ends an import that was stopped before its outcome (cancelled); a finished one keeps its outcome. */
    async failIfUnfinished(id: number, code: string, message: string): Promise<void> {
      const changes = { status: 'ERROR', error_code: code, error_message: message.slice(0, 2000), processed_at: db.fn.now(), updated_at: db.fn.now() };
      const row = await updateStatus<Pick<UploadedFileRow, 'type'>>(db, 'uploaded_files', id, changes, ['type'], whileUnfinished);
      if (row) countImport(row.type, 'failed');
    },

    async markFailed(id: number, code: string, message: string): Promise<void> {
      const changes = { status: 'ERROR', error_code: code, error_message: message.slice(0, 2000), processed_at: db.fn.now(), updated_at: db.fn.now() };
      const row = await updateStatus<Pick<UploadedFileRow, 'type'>>(db, 'uploaded_files', id, changes, ['type']);
      if (row && row.previous_status !== 'ERROR') countImport(row.type, 'failed');
    },
  };
}

export type UploadedFilesRepository = ReturnType<typeof createUploadedFilesRepository>;
