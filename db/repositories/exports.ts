import type { Knex } from 'knex';
import type { Database } from '../connection';
import { countExport } from '../../config/outcome-metrics';
import { isUniqueViolation } from '../errors';
import type { UblLine, UblParty } from '../../domain/ubl/types';
import { ACCOUNTING_COLUMNS, type StoredAccounting } from '../../domain/documents/accounting';
import { qualified } from '../columns';
import type { TotalsWarning } from '../../domain/ubl/totals-consistency';

export type ExportStatus = 'pending' | 'succeeded' | 'failed';

/** An export with what its record shows of the document; completed_at_text has microseconds and a UTC offset. */
export type ExportRow = {
  id: number;
  company_id: number;
  document_id: number;
  integration: string;
  export_kind: string;
  status: ExportStatus;
  forced: boolean;
  external_id: string | null;
  external_number: string | null;
  external_name: string | null;
  error_code: string | null;
  error_message: string | null;
  attempts: number;
  completed_at_text: string | null;
  created_at: Date;
  document_type: string;
  document_cufe: string | null;
  dian_document_type: string | null;
  code_scheme: string | null;
  dian_environment: string | null;
  warnings: TotalsWarning[] | null;
};

/** What an export needs of its document (the parsed UBL parts are jsonb). */
export type DocumentForExport = StoredAccounting & {
  id: number;
  company_id: number;
  document_type: string;
  kind: 'purchase' | 'sale';
  number: string | null;
  cufe: string | null;
  issued_at: Date;
  due_date: string | null;
  supplier: UblParty | null;
  lines: UblLine[] | null;
  dian_document_type: string | null;
  code_scheme: string | null;
  dian_environment: string | null;
  contact_id_type: string | null;
  contact_id_number: string | null;
  contact_dv: string | null;
  contact_name: string | null;
  contact_email: string | null;
};

export class ExportInProgressError extends Error {}

const COMPLETED_AT = `to_char(e.completed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"+00:00"') AS completed_at_text`;

export function createExportsRepository(db: Database) {
  const withDocument = (query: Knex.QueryBuilder) =>
    query
      .join('documents as d', 'd.id', 'e.document_id')
      .select('e.*', 'd.document_type', 'd.cufe as document_cufe', 'd.dian_document_type', 'd.code_scheme', 'd.dian_environment', 'd.warnings', db.raw(COMPLETED_AT));

  /** The metrics' export target: the integration's provider (its name is the company's own). */
  async function providerOf(row: ExportRow): Promise<string | undefined> {
    const integration = await db('integrations').where({ company_id: row.company_id, name: row.integration }).first('provider');
    return integration?.provider as string | undefined;
  }

  async function byId(trx: Knex | Knex.Transaction, id: number): Promise<ExportRow> {
    const row = (await withDocument(trx('exports as e')).where('e.id', id).first()) as ExportRow | undefined;
    if (!row) throw new Error(`export ${id} does not exist`);
    return row;
  }

  return {
    /** A pending export; ExportInProgressError when the document already has one pending. */
    async insertPending(input: { companyId: number; documentId: number; integration: string; forced: boolean }): Promise<ExportRow> {
      try {
        const [row] = await db('exports')
          .insert({ company_id: input.companyId, document_id: input.documentId, integration: input.integration, forced: input.forced })
          .returning('id');
        return byId(db, row.id as number);
      } catch (error) {
        if (isUniqueViolation(error)) throw new ExportInProgressError();
        throw error;
      }
    },

    /** The id of the document's pending export, if any (at most one: the pending-per-document index). */
    async pendingIdForDocument(companyId: number, documentId: number): Promise<number | undefined> {
      const row = await db('exports').where({ company_id: companyId, document_id: documentId, status: 'pending' }).first('id');
      return row ? Number(row.id) : undefined;
    },

    find(companyId: number, id: number): Promise<ExportRow | undefined> {
      return withDocument(db('exports as e')).where({ 'e.company_id': companyId, 'e.id': id }).first();
    },

    findById(id: number): Promise<ExportRow | undefined> {
      return withDocument(db('exports as e')).where('e.id', id).first();
    },

    /** Newest first; `beforeId` continues after the last id of the previous page. */
    listForCompany(companyId: number, limit: number, beforeId?: number): Promise<ExportRow[]> {
      const query = withDocument(db('exports as e')).where('e.company_id', companyId).orderBy('e.id', 'desc').limit(limit);
      if (beforeId !== undefined) query.where('e.id', '<', beforeId);
      return query;
    },

    async documentForExport(documentId: number): Promise<DocumentForExport | undefined> {
      return db('documents as d')
        .leftJoin('contacts as c', 'c.id', 'd.contact_id')
        .where('d.id', documentId)
        .first(
          'd.id', 'd.company_id', 'd.document_type', 'd.kind', 'd.number', 'd.cufe', 'd.issued_at', 'd.due_date', 'd.currency',
          'd.sub_total', 'd.vat', 'd.total', 'd.supplier', 'd.lines', 'd.dian_document_type', 'd.code_scheme', 'd.dian_environment',
          ...qualified('d', ACCOUNTING_COLUMNS),
          'c.id_type as contact_id_type', 'c.id_number as contact_id_number', 'c.dv as contact_dv', 'c.name as contact_name', 'c.email as contact_email',
        );
    },

    async recordAttempt(id: number, attempt: number): Promise<void> {
      await db('exports').where({ id }).update({ attempts: attempt, updated_at: db.fn.now() });
    },

    /** One more attempt the software failed with a retryable failure; returns how many it has failed so. */
    async countRetryableFailure(id: number): Promise<number> {
      const [row] = await db('exports')
        .where({ id })
        .update({ retryable_failures: db.raw('retryable_failures + 1'), updated_at: db.fn.now() })
        .returning<{ retryable_failures: number }[]>('retryable_failures');
      return row?.retryable_failures ?? 0;
    },

    /**
     * The export succeeded: its record and the document's export reference, synced and
     * synced_at change together. Idempotent for a retried call.
     */
    async markSucceeded(id: number, result: { externalId: string; externalNumber: string; externalName: string | null }): Promise<ExportRow> {
      let moved = false;
      const row = await db.transaction(async (trx) => {
        const current = await byId(trx, id);
        if (current.status !== 'pending') return current;
        moved = true;
        await trx('exports').where({ id }).update({
          status: 'succeeded',
          external_id: result.externalId,
          external_number: result.externalNumber,
          external_name: result.externalName,
          error_code: null,
          error_message: null,
          completed_at: trx.fn.now(),
          updated_at: trx.fn.now(),
        });
        await trx('documents').where({ id: current.document_id }).update({
          export_integration: current.integration,
          export_external_id: result.externalId,
          export_external_number: result.externalNumber,
          export_external_name: result.externalName,
          exported_at: trx.fn.now(),
          export_marked_manually: false,
          synced: true,
          synced_at: trx.fn.now(),
          updated_at: trx.fn.now(),
        });
        return byId(trx, id);
      });
      if (row.status === 'succeeded' && moved) countExport(await providerOf(row), 'succeeded');
      return row;
    },

    async markFailed(id: number, code: string, message: string): Promise<ExportRow> {
      const changed = await db('exports')
        .where({ id, status: 'pending' })
        .update({ status: 'failed', error_code: code, error_message: message, completed_at: db.fn.now(), updated_at: db.fn.now() });
      const row = await byId(db, id);
      if (changed > 0) countExport(await providerOf(row), 'failed');
      return row;
    },

    /** An export done by hand: only the document changes (no export record, no posting, no event). */
    /**
     * Records a reference made outside the service, unless an export of the document is pending
     * (its posting would make a second entry) or, without force, the document already has one;
     * one statement, so a concurrent export cannot slip in between the check and the write.
     */
    async markDocumentExportedManually(
      companyId: number,
      documentId: number,
      reference: { integration: string; externalId: string; externalNumber: string; externalName: string | null },
      force: boolean,
    ): Promise<'marked' | 'export_in_progress' | 'already_exported'> {
      const marked = await db('documents')
        .where({ company_id: companyId, id: documentId })
        .modify((query) => (force ? query : query.whereNull('export_integration')))
        .whereNotExists(db('exports').where({ company_id: companyId, document_id: documentId, status: 'pending' }).select(db.raw('1')))
        .update({
          export_integration: reference.integration,
          export_external_id: reference.externalId,
          export_external_number: reference.externalNumber,
          export_external_name: reference.externalName,
          exported_at: db.fn.now(),
          export_marked_manually: true,
          synced: true,
          synced_at: db.fn.now(),
          updated_at: db.fn.now(),
        });
      if (marked === 1) return 'marked';
      return (await this.pendingIdForDocument(companyId, documentId)) !== undefined ? 'export_in_progress' : 'already_exported';
    },
  };
}

export type ExportsRepository = ReturnType<typeof createExportsRepository>;
