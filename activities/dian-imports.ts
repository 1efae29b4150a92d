import { ApplicationFailure } from '@temporalio/activity';
import type { DianImportRow } from '../db/repositories/dian-imports';
import { DianError } from '../integrations/dian/port';
import { acceptFile } from '../services/accept-file';
import type { IngestionActivityDependencies } from './ingestion';
import { companyDian, dianFailure, type DianActivityDependencies } from './dian-gateway';
import { presentDianImport } from '../services/presenters/dian-import';

/** DIAN's code for each document type of the simulator's listing ('' = every type). */
const LISTING_TYPE = { invoice: '01', credit_note: '91', all: '' } as const;

export type DianDocumentOutcome = { fileId: number } | { skipped: 'already_present' | 'not_found' };

function retryableDian(error: unknown): never {
  if (error instanceof DianError) {
    if (error.retryable) throw ApplicationFailure.retryable(error.message, `dian_${error.code}`);
    throw dianFailure(`dian_${error.code}`, error.message);
  }
  throw error;
}

export function createDianImportActivities(deps: DianActivityDependencies & IngestionActivityDependencies) {
  const { repositories } = deps;

  async function load(importId: number): Promise<DianImportRow> {
    const row = await repositories.dianImports.findById(importId);
    if (!row) throw new Error(`DIAN import ${importId} does not exist`);
    return row;
  }

  return {
    /**
     * The CUFEs of the run: those of the uploaded export, or DIAN's listing of the range. DIAN's
     * web service has no listing operation (integrations/dian/README.md), so only the simulator
     * can list; against DIAN a run without a file fails with listing_not_supported.
     */
    /**
     * Lists the run's CUFEs once (the uploaded export, or the gateway's listing) and keeps them
     * on the run, so the workflow reads them in batches without carrying them in its history.
     * Returns how many there are.
     */
    async listDianImportCufes(importId: number): Promise<number> {
      const run = await load(importId);
      await repositories.dianImports.markProcessing(importId);
      if (run.requested_cufes) return run.requested_cufes.length;
      const dian = await companyDian(deps, run.company_id);
      if (!dian.gateway.listReceivedDocuments) {
        throw dianFailure('listing_not_supported', 'DIAN\'s web service cannot list received documents; upload the "documentos recibidos" export (CSV or XLSX) instead.');
      }
      const company = await repositories.companies.findVisible({ allCompanies: true }, run.company_id);
      if (!company) throw dianFailure('company_not_found', `Company ${run.company_id} no longer exists.`);
      let cufes: string[];
      try {
        const documents = await dian.gateway.listReceivedDocuments({
          companyNit: company.nit, from: run.begin_date, to: run.end_date, documentType: LISTING_TYPE[run.document_type],
        });
        cufes = [...new Set(documents.map((document) => document.cufe.toLowerCase()))];
      } catch (error) {
        return retryableDian(error);
      }
      await repositories.dianImports.storeListing(importId, cufes);
      return ((await load(importId)).requested_cufes ?? cufes).length;
    },

    /** CUFEs [offset, offset + limit) of the run's listing. */
    async dianImportBatch(importId: number, offset: number, limit: number): Promise<string[]> {
      return ((await load(importId)).requested_cufes ?? []).slice(offset, offset + limit);
    },

    /**
     * One document of the run: skipped without asking DIAN when the company already has its
     * CUFE; otherwise its XML is fetched and stored like an upload (type DIAN), without starting
     * the import (the run awaits importFileWorkflow as a child). Idempotent per run and CUFE.
     */
    async fetchDianDocument(importId: number, cufe: string): Promise<DianDocumentOutcome> {
      const run = await load(importId);
      if (await repositories.dianImports.companyHasCufe(run.company_id, cufe)) return { skipped: 'already_present' };
      const dian = await companyDian(deps, run.company_id);
      let lookup;
      try {
        lookup = await dian.gateway.getXmlByDocumentKey(cufe);
      } catch (error) {
        return retryableDian(error);
      }
      if (!lookup.found) return { skipped: 'not_found' };
      const { file } = await acceptFile(deps, {
        companyId: run.company_id,
        type: 'DIAN',
        fileName: `${cufe}.xml`,
        bytes: lookup.xml,
        dianImportationId: importId,
        idempotencyKey: `dian-import-${importId}-${cufe}`,
        startImport: false,
      });
      return { fileId: file.id };
    },

    /** Whether an uploaded file's import has finished (for a child that was started elsewhere). */
    async awaitUploadedFile(fileId: number): Promise<void> {
      const file = await repositories.uploadedFiles.findById(fileId);
      if (file && file.status !== 'DONE' && file.status !== 'ERROR') throw ApplicationFailure.retryable(`file ${fileId} is still ${file.status}`);
    },

    /** Counts from what the run created; skipped = found minus created (already present or not importable). */
    async finishDianImport(importId: number, found: number): Promise<void> {
      const created = await repositories.dianImports.createdCounts(importId);
      const skipped = Math.max(0, found - created.electronic_invoices_count - created.credit_notes_count);
      await repositories.dianImports.finish(importId, { found_count: found, ...created, skipped_count: skipped });
    },

    async failDianImport(importId: number, code: string, message: string): Promise<void> {
      await repositories.dianImports.fail(importId, code, message);
    },

    async dianImportRecord(importId: number) {
      const row = await load(importId);
      return { ...presentDianImport(row), company_id: row.company_id };
    },
  };
}
