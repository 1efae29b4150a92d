import type { Database } from '../connection';
import { countDianEvent } from '../../config/outcome-metrics';
import { updateStatus } from '../status-change';
import type { EventIssuer } from '../../domain/dian/application-response';

export type DianEventCode = '030' | '032' | '033';

/**
 * The error code the API gave an event whose workflow it could not start, until 2026-11-25 (the
 * row now stays pending): such an event is never sent by a workflow that started after all.
 */
export const NOT_STARTED = 'not_started';

export type DianEventRow = {
  id: number;
  company_id: number;
  document_id: number;
  event: DianEventCode;
  /** Event number (cbc:ID): the company's prefix plus `sequence`; null for events created before numbering. */
  number: string | null;
  /** Per-company consecutive (also the file name's consecutive). */
  sequence: number | null;
  /** pending → succeeded | failed */
  status: 'pending' | 'succeeded' | 'failed';
  succeeded: boolean | null;
  cude: string | null;
  /** The person issuing a 030/032 (EventIssuer of domain/dian/application-response.ts). */
  issuer: EventIssuer | null;
  /** Blob keys: the signed ApplicationResponse as sent, and DIAN's last answer (JSON). */
  signed_xml_blob_key: string | null;
  dian_response_blob_key: string | null;
  error_code: string | null;
  error_message: string | null;
  completed_at: Date | null;
  /** When its first attempt signed it (its IssueDate/IssueTime and SigningTime); null until then. */
  issued_at: Date | null;
  /** The number of the earlier attempt it adopted (DIAN held that one: the number DIAN holds); null otherwise. */
  adopted_number: string | null;
  created_at: Date;
  updated_at: Date;
};

export function createDianEventsRepository(db: Database) {
  async function markSucceeded(id: number, cude: string, adopted: Partial<Pick<DianEventRow, 'signed_xml_blob_key' | 'dian_response_blob_key' | 'issued_at' | 'adopted_number'>>): Promise<void> {
    const row = await updateStatus<Pick<DianEventRow, 'event'>>(db, 'dian_events', id, {
      ...adopted, status: 'succeeded', succeeded: true, cude, error_code: null, error_message: null, completed_at: db.fn.now(), updated_at: db.fn.now(),
    }, ['event']);
    if (row && row.previous_status !== 'succeeded') countDianEvent(row.event, 'succeeded');
  }

  return {
    /**
     * Creates a pending event numbered `${numberPrefix}${sequence}`, the sequence allocated
     * atomically per company (the upsert's row lock serialises concurrent inserts).
     */
    /**
     * A new pending event, numbered from the company's sequence. `admit` sees the document's
     * events, read under a lock on the document, and throws to refuse: concurrent requests for
     * one invoice are checked one after the other, so two cannot both pass a check that only the
     * first should (a second 030 while the first is pending).
     */
    async insert(
      companyId: number,
      documentId: number,
      event: DianEventCode,
      issuer: EventIssuer | null,
      numberPrefix: string,
      admit: (existing: DianEventRow[]) => void = () => undefined,
    ): Promise<DianEventRow> {
      return db.transaction(async (trx) => {
        await trx('documents').where({ id: documentId, company_id: companyId }).forUpdate().select('id');
        admit(await trx<DianEventRow>('dian_events').where({ company_id: companyId, document_id: documentId }).orderBy('id', 'asc'));
        const allocated = await trx.raw<{ rows: { last_value: number }[] }>(
          `INSERT INTO dian_event_sequences (company_id, last_value) VALUES (?, 1)
           ON CONFLICT (company_id) DO UPDATE SET last_value = dian_event_sequences.last_value + 1
           RETURNING last_value`,
          [companyId],
        );
        const sequence = allocated.rows[0]!.last_value;
        const [row] = await trx('dian_events')
          .insert({ company_id: companyId, document_id: documentId, event, issuer: issuer ? JSON.stringify(issuer) : null, number: `${numberPrefix}${sequence}`, sequence })
          .returning('*');
        return row as DianEventRow;
      });
    },

    findById(id: number): Promise<DianEventRow | undefined> {
      return db<DianEventRow>('dian_events').where({ id }).first();
    },

    /** Every event of a document, oldest first. */
    listForDocument(companyId: number, documentId: number): Promise<DianEventRow[]> {
      return db<DianEventRow>('dian_events').where({ company_id: companyId, document_id: documentId }).orderBy('id', 'asc');
    },

    /** The invoice an event refers to (number, CUFE and the supplier as parsed from the UBL). */
    /** What the sending activity needs of the event's invoice, its DIAN type included (eligibility is checked again there). */
    documentOf(documentId: number): Promise<
      | {
          id: number; company_id: number; number: string | null; cufe: string | null; supplier: unknown;
          document_type: string; dian_document_type: string | null; dian_type_code: string | null; code_scheme: string | null;
          dian_environment: string | null;
        }
      | undefined
    > {
      return db('documents')
        .where({ id: documentId })
        .first('id', 'company_id', 'number', 'cufe', 'supplier', 'document_type', 'dian_document_type', 'dian_type_code', 'code_scheme', 'dian_environment');
    },

    /**
     * The event's issue instant: the one already recorded, else now, recorded atomically, so
     * concurrent or retried attempts all sign the same IssueDate/IssueTime (and so the same CUDE).
     */
    async issueInstant(id: number): Promise<Date> {
      const [row] = await db('dian_events').where({ id }).update({ issued_at: db.raw('COALESCE(issued_at, now())') }).returning('issued_at');
      return row.issued_at as Date;
    },

    async setArtifacts(id: number, keys: Partial<Pick<DianEventRow, 'signed_xml_blob_key' | 'dian_response_blob_key'>>): Promise<void> {
      await db('dian_events').where({ id }).update({ ...keys, updated_at: db.fn.now() });
    },

    /**
     * One more attempt DIAN failed with a failure worth retrying, in workflow run `runId`; returns
     * how many it has failed so in that run (a reset's new run counts from 1 again).
     */
    async countRetryableFailure(id: number, runId: string | null): Promise<number> {
      const [row] = await db('dian_events')
        .where({ id })
        .update({
          retryable_failures: db.raw('CASE WHEN retryable_failures_run IS NOT DISTINCT FROM ? THEN retryable_failures + 1 ELSE 1 END', [runId]),
          retryable_failures_run: runId,
          updated_at: db.fn.now(),
        })
        .returning<{ retryable_failures: number }[]>('retryable_failures');
      return row?.retryable_failures ?? 0;
    },

    markSucceeded(id: number, cude: string): Promise<void> {
      return markSucceeded(id, cude, {});
    },

    /**
     * Records a never-signed event as the one DIAN registered from an earlier attempt of the
     * invoice (failed after going out): its CUDE, files and issue instant, in one update, so a
     * retry never finds the row signed but not succeeded. The row keeps its own number, never sent.
     */
    markRegisteredByAttempt(id: number, attempt: DianEventRow, cude: string): Promise<void> {
      return markSucceeded(id, cude, {
        signed_xml_blob_key: attempt.signed_xml_blob_key, dian_response_blob_key: attempt.dian_response_blob_key, issued_at: attempt.issued_at,
        // Events created before numbering send their database id as their number.
        adopted_number: attempt.number ?? String(attempt.id),
      });
    },

    /** Ends an event stopped before its outcome (cancelled, or its workflow ended without one). */
    async failIfPending(id: number, code: string, message: string): Promise<void> {
      await db('dian_events').where({ id, status: 'pending' }).update({
        status: 'failed', succeeded: false, error_code: code, error_message: message.slice(0, 2000), completed_at: db.fn.now(), updated_at: db.fn.now(),
      });
    },

    async markFailed(id: number, code: string, message: string): Promise<void> {
      const row = await updateStatus<Pick<DianEventRow, 'event'>>(db, 'dian_events', id, {
        status: 'failed', succeeded: false, error_code: code, error_message: message.slice(0, 2000), completed_at: db.fn.now(), updated_at: db.fn.now(),
      }, ['event'], (query) => query.whereNot('t.status', 'succeeded'));
      if (row && row.previous_status !== 'failed') countDianEvent(row.event, 'failed');
    },
  };
}

export type DianEventsRepository = ReturnType<typeof createDianEventsRepository>;
