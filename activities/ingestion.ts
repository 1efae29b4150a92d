import { Context } from '@temporalio/activity';
import type { Repositories } from '../db/repositories';
import type { ContactChange } from '../db/repositories/imports';
import { PDF_KINDS, type ImportPlan, type ImportStep, type PdfKind } from '../domain/ingestion/plan-import';
import { CpuBudgetExceeded, planImportInPool } from '../services/cpu/pool';
import type { BlobStore } from '../storage/blob-store';
import { loadUploadedFileRecord, type UploadedFileRecord } from '../services/presenters/uploaded-file';
import { presentContact } from '../services/presenters/contact';
import type { TemporalTarget } from '../temporal/start-workflow';
import { publishWorkflowEvents, type WorkflowEvent } from '../services/publish-events';
import { startImport } from '../services/start-import';

export type IngestionActivityDependencies = {
  repositories: Repositories;
  blobStore: BlobStore;
  temporal: TemporalTarget;
};

export type ImportOutcome = { status: 'DONE' | 'ERROR'; contactChanges: ContactChange[] };

/** `id` is not used: published ids derive from the workflow (see publishEvents). */
export type EventToPublish = WorkflowEvent & { id?: string };

/** Lets Temporal notice a lost worker within the heartbeat timeout instead of the whole start-to-close. */
function heartbeat(details?: ImportStep): void {
  try {
    Context.current().heartbeat(details);
  } catch {
    // Called outside an activity (tests of the function itself): nothing to report to.
  }
}

export function createIngestionActivities(deps: IngestionActivityDependencies) {
  const { repositories } = deps;

  return {
    /**
     * Reads, parses and records one uploaded file. Bad input is an outcome (status ERROR with a
     * code), not an exception; exceptions are infrastructure faults and are retried.
     */
    async importUploadedFile(fileId: number): Promise<ImportOutcome> {
      const file = await repositories.uploadedFiles.findById(fileId);
      if (!file) throw new Error(`uploaded file ${fileId} does not exist`);
      if (file.status === 'DONE' || file.status === 'ERROR') return { status: file.status, contactChanges: [] };
      await repositories.uploadedFiles.markProcessing(fileId);
      heartbeat();
      const company = await repositories.companies.findVisible({ allCompanies: true }, file.company_id);
      if (!company) throw new Error(`company ${file.company_id} does not exist`);
      const bytes = await deps.blobStore.get(file.blob_key);
      heartbeat();
      const pdfKind = (PDF_KINDS as readonly string[]).includes(file.kind_hint ?? '') ? (file.kind_hint as PdfKind) : null;
      // In the CPU pool, within its time and memory budget; a heartbeat per ZIP entry and per document.
      let plan: ImportPlan;
      try {
        plan = await planImportInPool(bytes, file.file_name, company.nit, pdfKind, heartbeat);
      } catch (error) {
        if (!(error instanceof CpuBudgetExceeded)) throw error;
        plan = { ok: false, code: error.code, message: `The file could not be processed: ${error.message}.` };
      }
      heartbeat();
      if (!plan.ok) {
        await repositories.uploadedFiles.markFailed(fileId, plan.code, plan.message);
        return { status: 'ERROR', contactChanges: [] };
      }
      const result = await repositories.imports.importDrafts(file, plan.drafts);
      await repositories.uploadedFiles.markDone(fileId, result.skipped);
      return { status: 'DONE', contactChanges: result.contactChanges };
    },

    /** The last resort when importing kept failing for reasons other than the file itself. */
    async failUploadedFile(fileId: number, code: string, message: string): Promise<void> {
      await repositories.uploadedFiles.markFailed(fileId, code, message);
    },

    async uploadedFileRecord(fileId: number): Promise<UploadedFileRecord & { company_id: number }> {
      return loadUploadedFileRecord(repositories, fileId);
    },

    async contactRecord(contactId: number) {
      const contact = await repositories.contacts.findVisible({ allCompanies: true }, contactId);
      if (!contact) throw new Error(`contact ${contactId} does not exist`);
      return presentContact(contact);
    },

    /**
     * Reconciliation: an upload whose import workflow never started (Temporal was down when the
     * file was stored) or ended without an outcome gets its import (re)started. Returns how many.
     */
    async resumeUnfinishedImports(): Promise<number> {
      const files = await repositories.uploadedFiles.unfinished(120);
      for (const file of files) await startImport(deps, file.id, file.companyId);
      return files.length;
    },

    /**
     * Publishes events once each: their ids derive from the calling workflow's id, type and record
     * (services/publish-events.ts), so a retry, a reset or a re-run of the workflow publishes
     * nothing twice. The ids workflows pass are not used (older workflow code still passes them).
     */
    async publishEvents(events: EventToPublish[]): Promise<void> {
      const publisher = Context.current().info.workflowExecution?.workflowId;
      if (!publisher) throw new Error('publishEvents is an activity of a workflow');
      await publishWorkflowEvents(deps, publisher, events);
    },
  };
}
