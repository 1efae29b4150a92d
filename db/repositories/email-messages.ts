import type { Database } from '../connection';

export type EmailMessageRow = { id: number; company_id: number; blob_key: string; bytes: number; files: number; received_at: Date };

export function createEmailMessagesRepository(db: Database) {
  return {
    async record(message: Pick<EmailMessageRow, 'company_id' | 'blob_key' | 'bytes' | 'files'>): Promise<void> {
      await db('email_messages').insert(message);
    },

    /** Messages and bytes a company received since `since` (the daily quota's window). */
    async usageSince(companyId: number, since: Date): Promise<{ messages: number; bytes: number }> {
      const row = (await db('email_messages')
        .where({ company_id: companyId })
        .andWhere('received_at', '>=', since)
        .select(db.raw('count(*)::int as messages'), db.raw('coalesce(sum(bytes), 0)::bigint as bytes'))
        .first()) as { messages: number; bytes: number | string };
      return { messages: row.messages, bytes: Number(row.bytes) };
    },

    /** Messages nothing was imported from, received before `before`, oldest first. */
    listUnimportableBefore(before: Date, limit: number): Promise<EmailMessageRow[]> {
      return db<EmailMessageRow>('email_messages').where('files', 0).andWhere('received_at', '<', before).orderBy('received_at').limit(limit);
    },

    async remove(id: number): Promise<void> {
      await db('email_messages').where({ id }).delete();
    },
  };
}
