import type { Database } from '../db/connection';

export function createSystemActivities({ db }: { db: Database }) {
  return {
    async readDatabaseTime(): Promise<string> {
      const result = await db.raw<{ rows: { now: Date }[] }>('select now() as now');
      return result.rows[0].now.toISOString();
    },
  };
}
