import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { AppConfig } from '../config';
import { withTemporal } from './temporal';
import { loadMasterKey } from '../config/master-key';
import type { Repositories } from '../db/repositories';
import { PDF_KINDS } from '../domain/ingestion/plan-import';
import { acceptFile, IntakeError } from '../services/accept-file';
import { presentUploadedFile } from '../services/presenters/uploaded-file';
import { createBlobStore } from '../storage/create-blob-store';
import { AdminInputError } from '../admin/create-company';

/** `invoicing import`: each file takes the same path as an API upload (type UPLOAD). */
export async function importFiles(repositories: Repositories, config: AppConfig, companyId: number, files: string[], kind: string | null) {
  if (kind !== null && !(PDF_KINDS as readonly string[]).includes(kind)) {
    throw new AdminInputError(`--kind must be one of ${PDF_KINDS.join(', ')}.`);
  }
  return withTemporal(config, async (temporal) => {
    const intake = { repositories, blobStore: createBlobStore(config, loadMasterKey(config), () => ''), temporal };
    const results = [];
    for (const file of files) {
      const bytes = await readFile(file).catch((error: Error) => {
        throw new AdminInputError(`Cannot read ${file}: ${error.message}`);
      });
      try {
        const accepted = await acceptFile(intake, { companyId, type: 'UPLOAD', fileName: path.basename(file), bytes, kindHint: kind });
        results.push(presentUploadedFile(accepted.file, []));
      } catch (error) {
        if (!(error instanceof IntakeError)) throw error;
        results.push({ file_name: path.basename(file), error: { code: error.code, message: error.message } });
      }
    }
    return results;
  });
}
