import type { Repositories } from '../db/repositories';
import type { DianSettingsEnvironment } from '../db/repositories/dian-settings';
import type { ImportedDocumentRef, UploadedFileRow } from '../db/repositories/uploaded-files';

/**
 * DIAN's side of an imported file (docs/dian.md): whether the simulator must learn its XMLs
 * (company in environment simulator) and which received invoices' events to read from DIAN
 * (GetStatusEvent), for a company with DIAN settings. Decided where the file is imported, so
 * the import workflow runs the DIAN steps only when there is something to do.
 */
export type DianFollowUp = { registerWithSimulator: boolean; invoicesToSync: number[] };

export const NO_DIAN_FOLLOW_UP: DianFollowUp = { registerWithSimulator: false, invoicesToSync: [] };

/**
 * `environment`: the company's DIAN environment when the caller has read it (null: no DIAN
 * settings), else it is read here.
 */
export async function dianFollowUpOf(
  deps: { repositories: Repositories; dian: { simulatorUrl?: string } },
  file: UploadedFileRow,
  documents: ImportedDocumentRef[],
  environment?: DianSettingsEnvironment | null,
): Promise<DianFollowUp> {
  if (file.status !== 'DONE') return NO_DIAN_FOLLOW_UP;
  const known = environment !== undefined ? environment : (await deps.repositories.dianSettings.find(file.company_id))?.environment;
  if (!known) return NO_DIAN_FOLLOW_UP;
  // A file fetched from DIAN (an import run) is already known there: only uploads teach the simulator.
  const registerWithSimulator =
    file.type !== 'DIAN' && known === 'simulator' && Boolean(deps.dian.simulatorUrl) && documents.some((document) => document.cufe);
  const invoices = documents.filter((document) => document.kind === 'electronic_invoice' && document.cufe).map((document) => document.id);
  return { registerWithSimulator, invoicesToSync: await deps.repositories.dianRegisteredEvents.purchasesAmong(file.company_id, invoices) };
}
