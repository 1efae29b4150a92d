import { createHash } from 'node:crypto';
import { Context } from '@temporalio/activity';
import type { Repositories } from '../db/repositories';
import { isDataException } from '../db/errors';
import type { ContactChange } from '../db/repositories/imports';
import type { DianSettingsEnvironment } from '../db/repositories/dian-settings';
import type { ImportedDocumentRef, UploadedFileRow } from '../db/repositories/uploaded-files';
import { importEvents } from '../domain/ingestion/import-events';
import { PDF_KINDS, type ImportPlan, type PdfKind } from '../domain/ingestion/plan-import';
import { CpuBudgetExceeded, planImportInPool } from '../services/cpu/pool';
import { importFilesMemoryBudget } from '../services/file-memory-budget';
import { BlobNotFoundError, type BlobStore } from '../storage/blob-store';
import { loadUploadedFileRecord, presentUploadedFile, type UploadedFileRecord } from '../services/presenters/uploaded-file';
import { presentContact, type ContactOut } from '../services/presenters/contact';
import type { TemporalTarget } from '../temporal/start-workflow';
import { publishWorkflowEvents, type WorkflowEvent } from '../services/publish-events';
import { startImport } from '../services/start-import';
import { dianFollowUpOf, NO_DIAN_FOLLOW_UP, type DianFollowUp } from './dian-follow-up';
import { NO_HEARTBEAT, withHeartbeatsAfter, type Heartbeat } from './heartbeat';
import { retryingDependencyFaults } from './dependency-retries';

export type IngestionActivityDependencies = {
  repositories: Repositories;
  blobStore: BlobStore;
  temporal: TemporalTarget;
  dian: { simulatorUrl?: string };
};

export type ImportOutcome = { status: 'DONE' | 'ERROR'; contactChanges: ContactChange[] };

/** `id` is not used: published ids derive from the workflow (see publishEvents). */
export type EventToPublish = WorkflowEvent & { id?: string };

/** The Uploaded file record as document.imported / document.import_failed carry it, with its company. */
export type UploadedFileEventRecord = UploadedFileRecord & { company_id: number };

/**
 * Everything the import workflow needs after the import, gathered by the import activity itself
 * (one round trip instead of a read per record): the events' data and what DIAN's side needs.
 */
export type ImportedFile = ImportOutcome & {
  record: UploadedFileEventRecord;
  contacts: { type: ContactChange['type']; data: ContactOut }[];
  dian: DianFollowUp;
};

/**
 * How long an upload's import runs before it heartbeats: nearly every file is imported well
 * within it (activities/heartbeat.ts), and it leaves 12 s of the 15 s heartbeat timeout
 * (workflows/import-file.ts) for the first heartbeat of one that takes longer, which from then on
 * heartbeats every 5 s whatever it is doing.
 */
export const IMPORT_HEARTBEAT_GRACE_MS = 3_000;

/**
 * The outcome with the file's row as the import left it (undefined when it must be read again),
 * for its event record, and its company's DIAN environment when the import read it (null: no
 * DIAN settings).
 */
type StoredFileOutcome = ImportOutcome & { file?: UploadedFileRow; documents?: ImportedDocumentRef[]; dianEnvironment?: DianSettingsEnvironment | null };

/**
 * Reads, parses and records one stored file. Bad input is an outcome (status ERROR with a
 * code), not an exception; exceptions are infrastructure faults and are retried. A file already
 * DONE or ERROR (a retry after the work was done) is left as it is. `heartbeat` lets Temporal
 * notice a lost worker within the heartbeat timeout instead of the whole start-to-close.
 */
export async function importStoredFile(deps: IngestionActivityDependencies, fileId: number, heartbeat: Heartbeat = NO_HEARTBEAT): Promise<StoredFileOutcome> {
  const { repositories } = deps;
  const file = await repositories.uploadedFiles.markProcessing(fileId);
  if (!file) {
    const finished = await repositories.uploadedFiles.findById(fileId);
    if (!finished) throw new Error(`uploaded file ${fileId} does not exist`);
    return { status: finished.status as ImportOutcome['status'], contactChanges: [], file: finished };
  }
  heartbeat();
  const { company_nit: companyNit, dian_environment: dianEnvironment } = file;
  if (companyNit === null) throw new Error(`company ${file.company_id} does not exist`);
  const pdfKind = (PDF_KINDS as readonly string[]).includes(file.kind_hint ?? '') ? (file.kind_hint as PdfKind) : null;
  // The file's bytes are in memory from the read until the plan: within the process's budget
  // for them (services/file-memory-budget.ts), heartbeating while a large file waits its turn.
  const plan = await importFilesMemoryBudget().withBytes(
    Number(file.size), // bigint: pg returns it as a string
    async (): Promise<ImportPlan> => {
      const bytes = await storedBytes(deps.blobStore, file);
      if (!Buffer.isBuffer(bytes)) return bytes;
      heartbeat();
      // In the CPU pool, within its time and memory budget; a heartbeat per ZIP entry and per document.
      try {
        return await planImportInPool(bytes, file.file_name, companyNit, pdfKind, (step) => heartbeat(step));
      } catch (error) {
        if (!(error instanceof CpuBudgetExceeded)) throw error;
        return { ok: false, code: error.code, message: `The file could not be processed: ${error.message}.` };
      }
    },
    () => heartbeat(),
  );
  heartbeat();
  if (!plan.ok) {
    await repositories.uploadedFiles.markFailed(fileId, plan.code, plan.message);
    return { status: 'ERROR', contactChanges: [] };
  }
  let result: Awaited<ReturnType<typeof repositories.imports.importDrafts>>;
  try {
    result = await repositories.imports.importDrafts(file, plan.drafts);
  } catch (error) {
    // A value the parser let through that Postgres cannot store: retrying would fail alike,
    // forever (the import's transaction stored nothing). The client gets the SQLSTATE, not the SQL.
    if (!isDataException(error)) throw error;
    const sqlState = (error as { code: string }).code;
    await repositories.uploadedFiles.markFailed(fileId, 'unstorable_value', `A value in the file cannot be stored (SQLSTATE ${sqlState}); nothing of it was imported.`);
    return { status: 'ERROR', contactChanges: [] };
  }
  const done = await repositories.uploadedFiles.markDone(fileId, result.skipped);
  return { status: 'DONE', contactChanges: result.contactChanges, file: done, documents: result.documents, dianEnvironment };
}

/**
 * The uploaded file's bytes as they were accepted, or why they cannot be imported: gone from the
 * blob store (`file_missing`), or no longer the bytes recorded at upload (`file_corrupted`: a
 * file truncated or altered on disk). Either is final, not retried: retrying reads the same.
 * Before, a missing file was retried as an infrastructure fault and ended `import_failed` ("could
 * not be processed; it is kept"), and a truncated one was parsed and ended `malformed_xml`.
 */
async function storedBytes(blobStore: BlobStore, file: UploadedFileRow): Promise<Buffer | Extract<ImportPlan, { ok: false }>> {
  let bytes: Buffer;
  try {
    bytes = await blobStore.get(file.blob_key);
  } catch (error) {
    if (!(error instanceof BlobNotFoundError)) throw error;
    return { ok: false, code: 'file_missing', message: 'The uploaded file is no longer in the file store; nothing was imported. Upload it again.' };
  }
  if (bytes.length !== Number(file.size) || createHash('sha256').update(bytes).digest('hex') !== file.sha256) {
    return {
      ok: false,
      code: 'file_corrupted',
      message: `The stored file no longer matches the upload (${bytes.length} bytes instead of ${Number(file.size)}, or other content); nothing was imported. Upload it again.`,
    };
  }
  return bytes;
}

/**
 * The file's record for its event: its row and its documents as the import left them, each read
 * only when the caller does not have it (a retry after the import was done, a failure).
 */
async function uploadedFileEventRecord(repositories: Repositories, fileId: number, known: { file?: UploadedFileRow; documents?: ImportedDocumentRef[] } = {}) {
  const file = known.file ?? (await repositories.uploadedFiles.findById(fileId));
  if (!file) throw new Error(`uploaded file ${fileId} does not exist`);
  const documents = known.documents ?? (await repositories.uploadedFiles.documentsOf([fileId])).get(fileId) ?? [];
  return { file, documents, record: { ...presentUploadedFile(file, documents), company_id: file.company_id } };
}

async function contactRecord(repositories: Repositories, contactId: number): Promise<ContactOut> {
  const contact = await repositories.contacts.findVisible({ allCompanies: true }, contactId);
  if (!contact) throw new Error(`contact ${contactId} does not exist`);
  return presentContact(contact);
}

/** importStoredFile, then what the workflow needs afterwards (ImportedFile), read in the same activity. */
export async function importAndGather(deps: IngestionActivityDependencies, fileId: number, heartbeat: Heartbeat = NO_HEARTBEAT): Promise<ImportedFile> {
  const { file: written, documents: linked, dianEnvironment, ...outcome } = await importStoredFile(deps, fileId, heartbeat);
  const { file, documents, record } = await uploadedFileEventRecord(deps.repositories, fileId, { file: written, documents: linked });
  const contacts = [];
  for (const change of outcome.contactChanges) contacts.push({ type: change.type, data: await contactRecord(deps.repositories, change.contactId) });
  const dian = outcome.status === 'DONE' ? await dianFollowUpOf(deps, file, documents, dianEnvironment) : NO_DIAN_FOLLOW_UP;
  return { ...outcome, record, contacts, dian };
}

/** The workflow the running activity publishes for: published event ids derive from it. */
function publishingWorkflowId(): string {
  const publisher = Context.current().info.workflowExecution?.workflowId;
  if (!publisher) throw new Error('events are published by an activity of a workflow');
  return publisher;
}

export function createIngestionActivities(deps: IngestionActivityDependencies) {
  const { repositories } = deps;

  return {
    /**
     * Imports one uploaded file (importStoredFile) and returns, with the outcome, the records its
     * events carry and what DIAN's side needs (ImportedFile). Runs written before the patch
     * 'lean-import' read only status and contactChanges.
     */
    async importUploadedFile(fileId: number): Promise<ImportedFile> {
      return retryingDependencyFaults(() => withHeartbeatsAfter(IMPORT_HEARTBEAT_GRACE_MS, (heartbeat) => importAndGather(deps, fileId, heartbeat)));
    },

    /**
     * importUploadedFile, then, when DIAN's side has nothing to do, the import's events published
     * at once (`published`), as publishEvents would publish them for the workflow: the same ids,
     * so a retry publishes nothing twice. Otherwise the workflow runs DIAN's steps and publishes.
     */
    async importAndPublishUploadedFile(fileId: number): Promise<ImportedFile & { published: boolean }> {
      return retryingDependencyFaults(async () => {
        const imported = await withHeartbeatsAfter(IMPORT_HEARTBEAT_GRACE_MS, (heartbeat) => importAndGather(deps, fileId, heartbeat));
        if (imported.dian.registerWithSimulator || imported.dian.invoicesToSync.length > 0) return { ...imported, published: false };
        await publishWorkflowEvents(deps, publishingWorkflowId(), importEvents(imported));
        return { ...imported, published: true };
      });
    },

    /** The last resort when importing kept failing for reasons other than the file itself; returns the failed record. */
    async failUploadedFile(fileId: number, code: string, message: string): Promise<UploadedFileEventRecord> {
      await repositories.uploadedFiles.markFailed(fileId, code, message);
      return (await uploadedFileEventRecord(repositories, fileId)).record;
    },

    /** Read by import runs started before the patch 'lean-import' (the record now comes with the import). */
    async uploadedFileRecord(fileId: number): Promise<UploadedFileEventRecord> {
      return loadUploadedFileRecord(repositories, fileId);
    },

    /** Read by import runs started before the patch 'lean-import'. */
    async contactRecord(contactId: number) {
      return contactRecord(repositories, contactId);
    },

    /**
     * Reconciliation: an upload whose import workflow never started (Temporal was down when the
     * file was stored) or ended without an outcome gets its import (re)started. Returns how many.
     */
    async resumeUnfinishedImports(): Promise<number> {
      const files = await repositories.uploadedFiles.unfinished(120);
      for (const file of files) await startImport(deps, { fileId: file.id, companyId: file.companyId, sizeBytes: file.sizeBytes });
      return files.length;
    },

    /**
     * Publishes events once each: their ids derive from the calling workflow's id, type and record
     * (services/publish-events.ts), so a retry, a reset or a re-run of the workflow publishes
     * nothing twice. The ids workflows pass are not used (older workflow code still passes them).
     */
    async publishEvents(events: EventToPublish[]): Promise<void> {
      await publishWorkflowEvents(deps, publishingWorkflowId(), events);
    },
  };
}
