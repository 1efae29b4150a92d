import type { Repositories } from '../db/repositories';

export type IdempotentRequestActivityDependencies = { repositories: Repositories };

export function createIdempotentRequestActivities({ repositories }: IdempotentRequestActivityDependencies) {
  return {
    /** Deletes the kept answers to Idempotency-Key requests once their 24 hours are over. */
    async purgeExpiredIdempotentRequests(): Promise<{ answers: number }> {
      return { answers: await repositories.idempotentRequests.purgeExpired() };
    },
  };
}
