import type { Repositories } from '../db/repositories';
import type { BlobStore } from '../storage/blob-store';

/** How long an e-mailed message nothing was imported from is kept (docs/email-intake.md). */
export const UNIMPORTABLE_MAIL_RETENTION_DAYS = 30;
const BATCH = 500;

export type MailActivityDependencies = { repositories: Repositories; blobStore: BlobStore };

export function createMailActivities({ repositories, blobStore }: MailActivityDependencies) {
  return {
    /**
     * Deletes messages with no importable attachment once they are older than the retention:
     * the blob first, then the row, so a crash in between leaves a row the next run retries.
     */
    async purgeUnimportableMail(): Promise<{ messages: number }> {
      const before = new Date(Date.now() - UNIMPORTABLE_MAIL_RETENTION_DAYS * 24 * 60 * 60 * 1000);
      let messages = 0;
      for (;;) {
        const batch = await repositories.emailMessages.listUnimportableBefore(before, BATCH);
        for (const message of batch) {
          await blobStore.delete(message.blob_key);
          await repositories.emailMessages.remove(message.id);
        }
        messages += batch.length;
        if (batch.length < BATCH) return { messages };
      }
    },
  };
}
