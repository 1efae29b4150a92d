import type { Database } from '../connection';
import type { EventIssuer } from '../../domain/dian/application-response';

export type DianEventCode = '030' | '032' | '033';

export type DianEventRow = {
  id: number;
  company_id: number;
  document_id: number;
  event: DianEventCode;
  /** pending → succeeded | failed */
  status: 'pending' | 'succeeded' | 'failed';
  succeeded: boolean | null;
  cude: string | null;
  /** The person issuing a 030/032 (EventIssuer of domain/dian/application-response.ts). */
  issuer: EventIssuer | null;
  error_code: string | null;
  error_message: string | null;
  completed_at: Date | null;
  created_at: Date;
  updated_at: Date;
};

export function createDianEventsRepository(db: Database) {
  return {
    async insert(companyId: number, documentId: number, event: DianEventCode, issuer: EventIssuer | null): Promise<DianEventRow> {
      const [row] = await db('dian_events')
        .insert({ company_id: companyId, document_id: documentId, event, issuer: issuer ? JSON.stringify(issuer) : null })
        .returning('*');
      return row;
    },

    findById(id: number): Promise<DianEventRow | undefined> {
      return db<DianEventRow>('dian_events').where({ id }).first();
    },

    /** Every event of a document, oldest first. */
    listForDocument(companyId: number, documentId: number): Promise<DianEventRow[]> {
      return db<DianEventRow>('dian_events').where({ company_id: companyId, document_id: documentId }).orderBy('id', 'asc');
    },

    /** The invoice an event refers to (number, CUFE and the supplier as parsed from the UBL). */
    documentOf(documentId: number): Promise<{ id: number; number: string | null; cufe: string | null; supplier: unknown } | undefined> {
      return db('documents').where({ id: documentId }).first('id', 'number', 'cufe', 'supplier');
    },

    async markSucceeded(id: number, cude: string): Promise<void> {
      await db('dian_events').where({ id }).update({
        status: 'succeeded', succeeded: true, cude, error_code: null, error_message: null, completed_at: db.fn.now(), updated_at: db.fn.now(),
      });
    },

    async markFailed(id: number, code: string, message: string): Promise<void> {
      await db('dian_events').where({ id }).whereNot({ status: 'succeeded' }).update({
        status: 'failed', succeeded: false, error_code: code, error_message: message.slice(0, 2000), completed_at: db.fn.now(), updated_at: db.fn.now(),
      });
    },
  };
}

export type DianEventsRepository = ReturnType<typeof createDianEventsRepository>;
