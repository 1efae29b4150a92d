import { ApplicationFailure } from '@temporalio/activity';
import { detectFileType } from '../domain/files/detect';
import { readZipSafely } from '../domain/files/zip';
import { DianError } from '../integrations/dian/port';
import { registerDocumentWithSimulator } from '../integrations/dian/simulator/admin-client';
import type { DianActivityDependencies } from './dian-gateway';
import type { IngestionActivityDependencies } from './ingestion';

/** The DIAN XMLs inside an uploaded file's bytes (a bare XML, or the XMLs of a ZIP). */
function dianXmls(bytes: Buffer): Buffer[] {
  const type = detectFileType(bytes);
  if (type === 'xml') return [bytes];
  if (type === 'zip') return readZipSafely(bytes).xmls.map((xml) => xml.data);
  return [];
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
      if (!file || file.status !== 'DONE') return 0;
      const settings = await repositories.dianSettings.find(file.company_id);
      if (settings?.environment !== 'simulator' || !deps.dian.simulatorUrl) return 0;
      const documents = (await repositories.uploadedFiles.documentsOf([fileId])).get(fileId) ?? [];
      if (!documents.some((document) => document.cufe)) return 0;
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
  };
}
