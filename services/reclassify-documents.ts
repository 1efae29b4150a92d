import type { Repositories } from '../db/repositories';
import { readZipSafely } from '../domain/files/zip';
import { parseUbl } from '../domain/ubl/parse';
import type { UblDocument } from '../domain/ubl/types';
import type { BlobStore } from '../storage/blob-store';

export type ReclassifyOutcome = { examined: number; updated: number; unreadable: { id: number; reason: string }[] };

/** The DIAN documents in an original: a bare or wrapped XML, or every XML of a ZIP. */
function documentsIn(original: Buffer, contentType: string | null): UblDocument[] {
  if (contentType === 'application/zip') return readZipSafely(original).xmls.map((xml) => parseUbl(xml.data).document);
  return [parseUbl(original).document];
}

/**
 * Documents imported before their DIAN type and accounting fields were recorded (migration
 * 20261123080000 classified them from their collection: invoices as electronic_invoice/CUFE;
 * 20261125120000 left their tax breakdown NULL) are re-read from their stored originals: a POS
 * ticket or support document then gets its real type — and stops being eligible for DIAN
 * events — and every one its taxes, withholdings, allowances, prepayments, rounding and
 * exchange rate. Idempotent; an original that cannot be read or parsed is
 * reported and left as it was. `invoicing documents reclassify` runs it.
 */
export async function reclassifyFromOriginals(
  deps: { repositories: Repositories; blobStore: BlobStore },
  options: { batchSize?: number; companyId?: number } = {},
): Promise<ReclassifyOutcome> {
  const batchSize = options.batchSize ?? 200;
  const outcome: ReclassifyOutcome = { examined: 0, updated: 0, unreadable: [] };
  for (let afterId = 0; ; ) {
    const batch = await deps.repositories.documents.unclassified(afterId, batchSize, options.companyId);
    if (batch.length === 0) return outcome;
    for (const row of batch) {
      afterId = row.id;
      outcome.examined += 1;
      try {
        const documents = documentsIn(await deps.blobStore.get(row.original_blob_key), row.original_content_type);
        const match = documents.find((document) => document.cufe.toLowerCase() === row.cufe.toLowerCase());
        if (!match) throw new Error('no document in the original has this CUFE');
        await deps.repositories.documents.setDianFields(row.id, match);
        outcome.updated += 1;
      } catch (error) {
        outcome.unreadable.push({ id: row.id, reason: error instanceof Error ? error.message : String(error) });
      }
    }
  }
}
