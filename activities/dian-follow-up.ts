import type { Repositories } from '../db/repositories';
import type { ImportedDocumentRef, UploadedFileRow } from '../db/repositories/uploaded-files';

/**
 * DIAN's side of an imported file (docs/dian.md): whether the simulator must learn its XMLs
 * (company in environment simulator) and which received invoices' events to read from DIAN
 * (GetStatusEvent), for a company with DIAN settings. Decided where the file is imported, so
 * the import workflow runs the DIAN steps only when there is something to do.
 */
export type DianFollowUp = { registerWithSimulator: boolean; invoicesToSync: number[] };

export const NO_DIAN_FOLLOW_UP: DianFollowUp = { registerWithSimulator: false, invoicesToSync: [] };

export async function dianFollowUpOf(
  deps: { repositories: Repositories; dian: { simulatorUrl?: string } },
  file: UploadedFileRow,
  documents: ImportedDocumentRef[],
): Promise<DianFollowUp> {
  if (file.status !== 'DONE') return NO_DIAN_FOLLOW_UP;
  const settings = await deps.repositories.dianSettings.find(file.company_id);
  if (!settings) return NO_DIAN_FOLLOW_UP;
  // A file fetched from DIAN (an import run) is already known there: only uploads teach the simulator.
  const registerWithSimulator =
    file.type !== 'DIAN' && settings.environment === 'simulator' && Boolean(deps.dian.simulatorUrl) && documents.some((document) => document.cufe);
  const invoices = documents.filter((document) => document.kind === 'electronic_invoice' && document.cufe).map((document) => document.id);
  return { registerWithSimulator, invoicesToSync: await deps.repositories.dianRegisteredEvents.purchasesAmong(file.company_id, invoices) };
}
