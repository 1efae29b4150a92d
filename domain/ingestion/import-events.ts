import type { EventType } from '../webhooks/event-types';

/** What an import tells the client, in order: each contact it created or updated, then the file's own event. */
export type ImportEvent = { companyId: number; type: EventType; data: unknown };

/**
 * The events of one import: contact.created / contact.updated with each touched contact, then
 * document.imported (or document.import_failed) with the Uploaded file record, whose
 * company_id names the company and is not part of the record. Pure: the import workflow and the
 * import activity that publishes on its behalf build the same list.
 */
export function importEvents(imported: {
  status: 'DONE' | 'ERROR';
  record: { company_id: number } & Record<string, unknown>;
  contacts: readonly { type: EventType; data: unknown }[];
}): ImportEvent[] {
  const { company_id: companyId, ...data } = imported.record;
  const events: ImportEvent[] = imported.contacts.map((contact) => ({ companyId, type: contact.type, data: contact.data }));
  events.push({ companyId, type: imported.status === 'DONE' ? 'document.imported' : 'document.import_failed', data });
  return events;
}
