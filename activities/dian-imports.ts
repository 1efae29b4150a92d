import { ApplicationFailure, Context } from '@temporalio/activity';
import type { DianImportRow } from '../db/repositories/dian-imports';
import { DianError } from '../integrations/dian/port';
import { acceptFile } from '../services/accept-file';
import { publishWorkflowEvents } from '../services/publish-events';
import { importAndGather, type EventToPublish, type IngestionActivityDependencies } from './ingestion';
import { activityHeartbeat, type Heartbeat } from './heartbeat';
import { retryingDependencyFaults } from './dependency-retries';
import { syncInvoiceEvents } from './dian-documents';
import { companyDian, dianFailure, isRetryableDianFailure, type CompanyDian, type DianActivityDependencies } from './dian-gateway';
import { presentDianImport } from '../services/presenters/dian-import';
import { LISTING_NOT_SUPPORTED_MESSAGE, listingWindows, type ListingWindow } from '../domain/dian/listing-windows';
import { ReceivedExportError, receivedTypeMatches } from '../domain/dian/received-export';
import { CpuBudgetExceeded, cufesFromReceivedExportInPool } from '../services/cpu/pool';
import { DownloadError, downloadOutbound } from '../integrations/outbound/download';

/** DIAN's bulk-download CSV: generous for a quarter of documents, bounded all the same. */
const BULK_CSV_MAX_BYTES = 200 * 1024 * 1024;
const BULK_CSV_TIMEOUT_MS = 60_000;

/** How a run's CUFEs are listed: already counted, or DIAN's bulk download window by window. */
export type DianImportListing = number | { windows: ListingWindow[] };



export type DianDocumentOutcome = { fileId: number } | { skipped: 'already_present' | 'not_found' };

/**
 * Documents of one batch fetched and imported at the same time. A document mostly waits (two
 * DIAN calls, about twenty database round trips, the CPU pool's parse), so 8 keep the worker
 * busy on 2 cores; more would queue on the database pool (DATABASE_POOL_MAX, 10 by default).
 */
export const DIAN_BATCH_CONCURRENCY = 8;

/** What one batch did; `imported` counts files whose import ended (DONE or ERROR). */
export type DianBatchOutcome = { imported: number; skipped: number; failed: number };

/**
 * Attempts an activity of a run gets for DIAN's failures worth retrying (network, timeout, HTTP
 * 5xx: a retryable `dian_…` failure) or for its own (a bug: Temporal's attempt number,
 * activities/dependency-retries.ts): 8, 5 s doubling to 5 min, about 15 minutes (docs/dian.md).
 * A dependency of ours that is down (Postgres, the blob store) counts toward neither and is
 * waited out within the workflow's 30 attempts (OUTAGE_TOLERANT_RETRY_POLICY): until 2026-11-26 an
 * outage of about 15 minutes used up the 8 and left a batch's documents skipped, or failed the
 * listing, although nothing was wrong with DIAN.
 */
export const DIAN_IMPORT_ATTEMPTS = 8;

/**
 * What an activity's attempts carry to the next in their heartbeat: the leading items done (a
 * batch's CUFEs, where a retry resumes) and how many attempts DIAN failed with a failure worth
 * retrying. The count lives with the activity's own retries, as DIAN's 8 attempts did, rather
 * than in the run's row: a run holds many activities, one after another or (runs started before
 * the patch 'dian-import-batches') four documents at a time.
 */
type Progress = { done: number; dianFailures: number };

/** The last heartbeat's progress; batches heartbeated a bare count of CUFEs done before 2026-11-26. */
function lastProgress(): Progress {
  let details: unknown;
  try {
    details = Context.current().info.heartbeatDetails;
  } catch {
    return { done: 0, dianFailures: 0 };
  }
  const count = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : 0);
  if (typeof details === 'number') return { done: count(details), dianFailures: 0 };
  const { done, dianFailures } = (details ?? {}) as Partial<Progress>;
  return { done: count(done), dianFailures: count(dianFailures) };
}

/**
 * Runs an activity of the run so that DIAN's failures worth retrying end it at their 8th
 * (DIAN_IMPORT_ATTEMPTS, counted in `progress` and heartbeated with it: a failed attempt reports
 * its last heartbeat), with the code they carry, as the 8th attempt did before; a dependency of
 * ours that is down is retried within the workflow's policy, and anything else ends it at its 8th
 * attempt (retryingDependencyFaults).
 */
function countingDianFailures<T>(progress: Progress, heartbeat: Heartbeat, work: () => Promise<T>): Promise<T> {
  return retryingDependencyFaults(async () => {
    try {
      return await work();
    } catch (error) {
      if (!isRetryableDianFailure(error)) throw error;
      progress.dianFailures += 1;
      heartbeat(progress);
      if (progress.dianFailures >= DIAN_IMPORT_ATTEMPTS) throw dianFailure(error.type, error.message);
      throw error;
    }
  }, DIAN_IMPORT_ATTEMPTS);
}

/** countingDianFailures for an activity that reports no progress of its own. */
function dianActivity<T>(work: () => Promise<T>): Promise<T> {
  return countingDianFailures(lastProgress(), activityHeartbeat(), work);
}

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

  async function companyOf(companyId: number) {
    const company = await repositories.companies.findVisible({ allCompanies: true }, companyId);
    if (!company) throw dianFailure('company_not_found', `Company ${companyId} no longer exists.`);
    return company;
  }

  async function bulkListingOf(companyId: number) {
    const { gateway } = await companyDian(deps, companyId);
    if (!gateway.bulkListing) throw dianFailure('listing_not_supported', LISTING_NOT_SUPPORTED_MESSAGE);
    return gateway.bulkListing;
  }

  /**
   * One document of the run: skipped without asking DIAN when the company already has its
   * CUFE; otherwise its XML is fetched and stored like an upload (type DIAN), without starting
   * an import. Idempotent per run and CUFE.
   */
  async function fetchAndStore(run: DianImportRow, cufe: string, dianOfRun: () => Promise<CompanyDian> = () => companyDian(deps, run.company_id)): Promise<DianDocumentOutcome> {
    const idempotencyKey = `dian-import-${run.id}-${cufe}`;
    if (await repositories.dianImports.companyHasCufe(run.company_id, cufe)) {
      // A worker killed between the import's transaction and marking the file done leaves this
      // run's own file unfinished with its document stored: finish that file rather than skip it.
      const own = await repositories.uploadedFiles.findByIdempotencyKey(run.company_id, idempotencyKey);
      if (own && own.status !== 'DONE' && own.status !== 'ERROR') return { fileId: own.id };
      return { skipped: 'already_present' };
    }
    const dian = await dianOfRun();
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
      dianImportationId: run.id,
      idempotencyKey,
      startImport: false,
    });
    return { fileId: file.id };
  }

  /**
   * fetchAndStore, then the file's import, its events and DIAN's events of a received invoice.
   * `dianOfRun` is the company's gateway, read once per batch (settings, certificate, PIN).
   */
  async function importOneDocument(run: DianImportRow, cufe: string, dianOfRun: () => Promise<CompanyDian>, heartbeat: Heartbeat): Promise<keyof DianBatchOutcome> {
    let stored: DianDocumentOutcome;
    try {
      stored = await fetchAndStore(run, cufe, dianOfRun);
    } catch (error) {
      if (error instanceof ApplicationFailure && error.nonRetryable) return 'skipped';
      throw error;
    }
    if (!('fileId' in stored)) return 'skipped';
    const imported = await importAndGather(deps, stored.fileId, heartbeat);
    for (const documentId of imported.dian.invoicesToSync) {
      // Best effort, as after an upload: a failed read leaves the invoice unsynced, never the run.
      await syncInvoiceEvents(deps, documentId, dianOfRun).catch(() => 0);
    }
    const { company_id: companyId, ...data } = imported.record;
    const events: EventToPublish[] = imported.contacts.map((contact) => ({ companyId, type: contact.type, data: contact.data }));
    events.push({ companyId, type: imported.status === 'DONE' ? 'document.imported' : 'document.import_failed', data });
    // Ids derive from this publisher, the type and the record: a retried batch announces nothing twice.
    await publishWorkflowEvents(deps, `dian-import-${run.id}/file-${stored.fileId}`, events);
    return imported.status === 'DONE' ? 'imported' : 'failed';
  }

  const activities = {
    /**
     * Lists the run's CUFEs once and keeps them on the run, so the workflow reads them in batches
     * without carrying them in its history; returns how many there are. The uploaded export is
     * already listed. A date range uses DIAN's bulk download when the deployment turned it on
     * (DIAN_BULK_LISTING=assumed): then the answer is the ≤3-month windows for the workflow to
     * request one by one. Otherwise only the simulator can list (its extension); against DIAN the
     * run fails with listing_not_supported.
     */
    async listDianImportCufes(importId: number): Promise<DianImportListing> {
      const run = await load(importId);
      await repositories.dianImports.markProcessing(importId);
      if (run.source === 'dian_export_file') return run.requested_cufes?.length ?? 0;
      const dian = await companyDian(deps, run.company_id);
      if (dian.gateway.bulkListing) return { windows: listingWindows(run.begin_date, run.end_date) };
      if (run.requested_cufes) return run.requested_cufes.length;
      if (!dian.gateway.listReceivedDocuments) throw dianFailure('listing_not_supported', LISTING_NOT_SUPPORTED_MESSAGE);
      const company = await companyOf(run.company_id);
      let cufes: string[];
      try {
        // Every type listed ('' = all), then the run's own rule: the listing filters by one code, and an
        // invoice may be 01, 02, 03 or 04 (receivedTypeMatches, as for an uploaded export).
        const documents = await dian.gateway.listReceivedDocuments({ companyNit: company.nit, from: run.begin_date, to: run.end_date, documentType: '' });
        const wanted = documents.filter((document) => receivedTypeMatches(document.documentType, run.document_type));
        cufes = [...new Set(wanted.map((document) => document.cufe.toLowerCase()))];
      } catch (error) {
        return retryableDian(error);
      }
      await repositories.dianImports.storeListing(importId, cufes);
      return ((await load(importId)).requested_cufes ?? cufes).length;
    },

    /**
     * BulkDocumentDownloadAsync for one window of the run, documents the company received
     * (`Recibido`). Returns DIAN's trackId; DIAN's refusal (range, start older than three months,
     * not authorised) fails the run with dian_listing_refused and DIAN's words.
     */
    async requestDianBulkDownload(importId: number, window: ListingWindow): Promise<string> {
      const run = await load(importId);
      const bulk = await bulkListingOf(run.company_id);
      const company = await companyOf(run.company_id);
      let answer;
      try {
        answer = await bulk.requestBulkDownload({ nit: company.nit, from: window.from, to: window.to, group: 'Recibido' });
      } catch (error) {
        return retryableDian(error);
      }
      if ('refused' in answer) {
        throw dianFailure('dian_listing_refused', `DIAN refused the bulk download of ${window.from}…${window.to} (${answer.refused.statusCode}): ${answer.refused.description}`);
      }
      return answer.trackId;
    },

    /**
     * GetStatusBulkDocumentDownload until DIAN's CSV is ready (a retryable
     * dian_bulk_download_pending failure meanwhile: the activity's retry policy is the polling),
     * then the CSV is downloaded under the outbound policy, read by the same parser as an
     * uploaded export, and its CUFEs added to the run. Returns the listing's length so far.
     */
    async collectDianBulkDownload(importId: number, trackId: string): Promise<number> {
      const run = await load(importId);
      const { gateway, settings } = await companyDian(deps, run.company_id);
      if (!gateway.bulkListing) throw dianFailure('listing_not_supported', LISTING_NOT_SUPPORTED_MESSAGE);
      let status;
      try {
        status = await gateway.bulkListing.bulkDownloadStatus(trackId);
      } catch (error) {
        return retryableDian(error);
      }
      if (status.state === 'pending') throw ApplicationFailure.retryable(`DIAN is preparing bulk download ${trackId}: ${status.description}`, 'dian_bulk_download_pending');
      if (status.state === 'refused') throw dianFailure('dian_listing_refused', `DIAN answered ${status.statusCode} for bulk download ${trackId}: ${status.description}`);
      let csv: Buffer;
      try {
        // The simulator lives on loopback; DIAN's link must point at a public address.
        csv = await downloadOutbound(status.url, { allowPrivateTargets: settings.environment === 'simulator', timeoutMs: BULK_CSV_TIMEOUT_MS, maxBytes: BULK_CSV_MAX_BYTES });
      } catch (error) {
        if (error instanceof DownloadError && error.retryable) throw ApplicationFailure.retryable(`bulk download ${trackId}: ${error.message}`, 'dian_unavailable');
        throw dianFailure('dian_invalid_response', `bulk download ${trackId} could not be read: ${(error as Error).message}`);
      }
      let cufes: string[];
      try {
        cufes = await cufesFromReceivedExportInPool(csv, { documentType: run.document_type, beginDate: run.begin_date, endDate: run.end_date });
      } catch (error) {
        if (error instanceof ReceivedExportError || error instanceof CpuBudgetExceeded) throw dianFailure('dian_invalid_response', `DIAN's bulk download ${trackId}: ${error.message}`);
        throw error;
      }
      return repositories.dianImports.appendListing(importId, cufes);
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
      return fetchAndStore(await load(importId), cufe);
    },

    /**
     * CUFEs [offset, offset + limit) of the run, each fetched, stored and imported here
     * (importAndGather, the upload path's import), its events published and, for a received
     * invoice, the events DIAN has read (best effort) — instead of an activity and a child
     * workflow per document. DIAN_BATCH_CONCURRENCY at a time; heartbeats its progress (the
     * count of leading CUFEs done, where a retry resumes, and DIAN's failures so far). Every step
     * is idempotent (CUFE guard, idempotency key per run and CUFE, event ids derived from the
     * file), so a batch retried after a crash stores, imports and announces nothing twice. A
     * document DIAN cannot give, or that fails to import, is skipped; a retryable DIAN fault
     * retries the batch, and its 8th leaves the rest of the batch skipped; a dependency of ours
     * that is down retries it within the workflow's policy (countingDianFailures).
     */
    async importDianBatch(importId: number, offset: number, limit: number, progress: Progress, heartbeat: Heartbeat): Promise<DianBatchOutcome> {
      const run = await load(importId);
      const cufes = (run.requested_cufes ?? []).slice(offset, offset + limit);
      const outcome: DianBatchOutcome = { imported: 0, skipped: 0, failed: 0 };
      const done = new Array<boolean>(cufes.length).fill(false);
      progress.done = Math.min(progress.done, cufes.length);
      done.fill(true, 0, progress.done);
      let next = progress.done;
      // Once per batch; a failure (no settings, unusable certificate) is every document's, as before.
      const dian = companyDian(deps, run.company_id);
      dian.catch(() => undefined); // awaited by each document
      const dianOfRun = () => dian;
      // Every heartbeat carries the resume point, also the ones of a long import in between.
      const heartbeatProgress = () => heartbeat(progress);
      const lane = async () => {
        while (next < cufes.length) {
          const index = next++;
          const result = await importOneDocument(run, cufes[index]!, dianOfRun, heartbeatProgress);
          outcome[result] += 1;
          done[index] = true;
          while (progress.done < cufes.length && done[progress.done]) progress.done += 1;
          heartbeatProgress();
        }
      };
      await Promise.all(Array.from({ length: Math.min(DIAN_BATCH_CONCURRENCY, cufes.length) }, lane));
      return outcome;
    },

    /** Whether an uploaded file's import has finished (for a child that was started elsewhere). */
    async awaitUploadedFile(fileId: number): Promise<void> {
      const file = await repositories.uploadedFiles.findById(fileId);
      if (file && file.status !== 'DONE' && file.status !== 'ERROR') throw ApplicationFailure.retryable(`file ${fileId} is still ${file.status}`);
    },

    /** Counts from what the run created; skipped = found minus created (already present or not importable). */
    async finishDianImport(importId: number, found: number): Promise<void> {
      const { total, ...created } = await repositories.dianImports.createdCounts(importId);
      // Skipped is what the run did not create (docs/dian.md), whatever type the created ones are.
      const skipped = Math.max(0, found - total);
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

  return {
    ...activities,
    // The activities that ask DIAN: DIAN's transient failures and their own end them at their 8th
    // (DIAN_IMPORT_ATTEMPTS); a dependency of ours that is down is retried within the workflow's policy.
    listDianImportCufes: (importId: number) => dianActivity(() => activities.listDianImportCufes(importId)),
    requestDianBulkDownload: (importId: number, window: ListingWindow) => dianActivity(() => activities.requestDianBulkDownload(importId, window)),
    fetchDianDocument: (importId: number, cufe: string) => dianActivity(() => activities.fetchDianDocument(importId, cufe)),
    importDianBatch: (importId: number, offset: number, limit: number) => {
      const progress = lastProgress();
      const heartbeat = activityHeartbeat();
      return countingDianFailures(progress, heartbeat, () => activities.importDianBatch(importId, offset, limit, progress, heartbeat));
    },
  };
}
