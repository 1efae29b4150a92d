import { workflowIdsFor } from '../workflows/messages';

/**
 * How the API starts the workflow of an export, a DIAN event and a DIAN import run: its id
 * (derived from the record's, so a second start of the same record is refused by Temporal), its
 * subject (search attributes) and its arguments. The resume of stranded work
 * (services/resume-stranded-work.ts) starts a record's workflow exactly as the API would have.
 */
export function exportStart(taskQueue: string, record: { companyId: number; documentId: number; exportId: number }) {
  return {
    workflowId: workflowIdsFor(taskQueue).exportDocument(record.exportId),
    subject: { companyId: record.companyId, documentId: record.documentId, exportId: record.exportId },
    args: [{ exportId: record.exportId }] as [{ exportId: number }],
  };
}

export function dianEventStart(taskQueue: string, record: { companyId: number; documentId: number; cufe: string | null; eventId: number; event: string }) {
  return {
    workflowId: workflowIdsFor(taskQueue).dianEvent(record.eventId),
    subject: { companyId: record.companyId, documentId: record.documentId, cufe: record.cufe ?? undefined, dianEventCode: record.event },
    args: [{ eventId: record.eventId }] as [{ eventId: number }],
  };
}

export function dianImportStart(taskQueue: string, record: { companyId: number; importId: number }) {
  return {
    workflowId: workflowIdsFor(taskQueue).dianImport(record.importId),
    subject: { companyId: record.companyId },
    args: [{ importId: record.importId }] as [{ importId: number }],
  };
}
