import { ApplicationFailure, Context } from '@temporalio/activity';
import { detectFileType } from '../domain/files/detect';
import { readZipSafely } from '../domain/files/zip';
import { DianError, type DianRegisteredEvent } from '../integrations/dian/port';
import { eventEnvironmentEligibility } from '../domain/dian/event-eligibility';
import { registerDocumentWithSimulator } from '../integrations/dian/simulator/admin-client';
import { companyDian, type CompanyDian, type DianActivityDependencies } from './dian-gateway';
import type { IngestionActivityDependencies } from './ingestion';
import { dianFollowUpOf } from './dian-follow-up';

/** The DIAN XMLs inside an uploaded file's bytes (a bare XML, or the XMLs of a ZIP). */
function dianXmls(bytes: Buffer): Buffer[] {
  const type = detectFileType(bytes);
  if (type === 'xml') return [bytes];
  if (type === 'zip') return readZipSafely(bytes).xmls.map((xml) => xml.data);
  return [];
}

/** A warning in the running activity's log; outside an activity (a test of the function itself) there is none to write to. */
export function warnInActivity(message: string, meta: Record<string, unknown>): void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return;
  }
  context.log.warn(message, meta);
}

/**
 * GetStatusEvent for one invoice, stored as its registered_at_dian (each call replaces the list),
 * and returned; null, with nothing asked or changed, when the company's settings send to the
 * other DIAN environment than the one that validated the invoice: that environment's catalogue
 * does not hold the CUFE and answers "no events", which would empty a list that is right.
 */
export async function readRegisteredEvents(
  deps: DianActivityDependencies,
  document: { id: number; company_id: number; cufe: string; dian_environment: string | null },
  dian: CompanyDian,
): Promise<DianRegisteredEvent[] | null> {
  const environment = eventEnvironmentEligibility(dian.settings.environment, document.dian_environment);
  if (!environment.eligible) {
    warnInActivity('DIAN events of the invoice not synced: wrong DIAN environment', { documentId: document.id, reason: environment.reason });
    return null;
  }
  let events;
  try {
    events = await dian.gateway.getStatusEvent(document.cufe);
  } catch (error) {
    if (error instanceof DianError) {
      if (error.retryable) throw ApplicationFailure.retryable(error.message, `dian_${error.code}`);
      throw ApplicationFailure.create({ type: `dian_${error.code}`, message: error.message, nonRetryable: true });
    }
    throw error;
  }
  await deps.repositories.dianRegisteredEvents.replace(
    document.company_id,
    document.id,
    events.map((event) => ({ event: event.code, description: event.description, cude: event.cude, effectiveDate: event.date })),
  );
  return events;
}

/**
 * Refreshes what DIAN has registered against an invoice (GetStatusEvent), events sent through
 * DIAN's portal or other software included, so the API's checks need no call to DIAN. DIAN's
 * faults become activity failures (retryable or not). Returns how many events DIAN listed (0
 * when skipped for the wrong environment, see readRegisteredEvents).
 * `dianOfCompany` lets a caller that already holds the company's gateway (an import batch) pass it.
 */
export async function syncInvoiceEvents(
  deps: DianActivityDependencies,
  documentId: number,
  dianOfCompany: (companyId: number) => Promise<CompanyDian> = (companyId) => companyDian(deps, companyId),
): Promise<number> {
  const document = await deps.repositories.dianEvents.documentOf(documentId);
  if (!document?.cufe) return 0;
  const events = await readRegisteredEvents(deps, { ...document, cufe: document.cufe }, await dianOfCompany(document.company_id));
  return events?.length ?? 0;
}

/** What happens at DIAN's side once a file's documents are imported (docs/dian.md). */
export function createDianDocumentActivities(deps: DianActivityDependencies & IngestionActivityDependencies) {
  const { repositories } = deps;
  return {
    /**
     * For a company whose DIAN environment is `simulator`: the simulator plays DIAN, which
     * knows every validated document, so the file's XMLs are registered with it (its HTTP
     * administration, which works across processes). Nothing for other companies. Returns how
     * many documents the simulator took.
     */
    async registerImportedWithDianSimulator(fileId: number): Promise<number> {
      const file = await repositories.uploadedFiles.findById(fileId);
      if (!file || file.status !== 'DONE' || !deps.dian.simulatorUrl) return 0;
      const documents = (await repositories.uploadedFiles.documentsOf([fileId])).get(fileId) ?? [];
      if (!(await dianFollowUpOf(deps, file, documents)).registerWithSimulator) return 0;
      let registered = 0;
      for (const xml of dianXmls(await deps.blobStore.get(file.blob_key))) {
        try {
          if (await registerDocumentWithSimulator(deps.dian.simulatorUrl, xml)) registered++;
        } catch (error) {
          if (error instanceof DianError && error.retryable) throw ApplicationFailure.retryable(error.message, `dian_${error.code}`);
          throw error;
        }
      }
      return registered;
    },

    /**
     * The file's received electronic invoices (purchases with a CUFE) whose events DIAN can tell,
     * i.e. of a company with DIAN settings; empty otherwise.
     */
    async importedInvoicesForDianSync(fileId: number): Promise<number[]> {
      const file = await repositories.uploadedFiles.findById(fileId);
      if (!file) return [];
      const documents = (await repositories.uploadedFiles.documentsOf([fileId])).get(fileId) ?? [];
      return (await dianFollowUpOf(deps, file, documents)).invoicesToSync;
    },

    /** syncInvoiceEvents for one invoice (the on-demand sync, and import runs started before the patch 'lean-import'). */
    async syncDianEvents(documentId: number): Promise<number> {
      return syncInvoiceEvents(deps, documentId);
    },

    /**
     * syncDianEvents for the invoices of one imported file, in one activity. An invoice DIAN
     * refuses for good is left unsynced (as a failed per-invoice sync was); a retryable fault
     * retries the batch, which is idempotent (each invoice's list is replaced). Returns how many
     * events were read.
     */
    async syncDianEventsOf(documentIds: number[]): Promise<number> {
      let events = 0;
      for (const documentId of documentIds) {
        try {
          events += await syncInvoiceEvents(deps, documentId);
        } catch (error) {
          if (!(error instanceof ApplicationFailure && error.nonRetryable)) throw error;
        }
      }
      return events;
    },
  };
}
