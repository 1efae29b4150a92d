import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';

/**
 * The custom search attributes every workflow the service starts carries, so that operators can
 * find work in Temporal UI / `temporal workflow list --query` by company, document, upload,
 * endpoint, event type, CUFE, DIAN event code or export (docs/operations.md). SQL visibility
 * (SQLite, Postgres) allows only three custom Int attributes: CompanyId, DocumentId and
 * UploadedFileId; the others are Keyword.
 *
 * Safe to import from workflow code (workflows/dian-import.ts passes them to its children).
 */
export const searchAttributes = {
  CompanyId: defineSearchAttributeKey('CompanyId', SearchAttributeType.INT),
  DocumentId: defineSearchAttributeKey('DocumentId', SearchAttributeType.INT),
  UploadedFileId: defineSearchAttributeKey('UploadedFileId', SearchAttributeType.INT),
  EndpointId: defineSearchAttributeKey('EndpointId', SearchAttributeType.KEYWORD),
  EventType: defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD),
  Cufe: defineSearchAttributeKey('Cufe', SearchAttributeType.KEYWORD),
  DianEventCode: defineSearchAttributeKey('DianEventCode', SearchAttributeType.KEYWORD),
  ExportId: defineSearchAttributeKey('ExportId', SearchAttributeType.KEYWORD),
} as const;

/** What a workflow is about; every field is optional so each start site passes what it knows. */
export type WorkflowSubject = {
  companyId?: number;
  documentId?: number;
  uploadedFileId?: number;
  endpointId?: number;
  eventType?: string;
  cufe?: string;
  dianEventCode?: string;
  exportId?: number;
};

/** The typed search attributes of a subject (absent fields are left out). */
export function searchAttributePairs(subject: WorkflowSubject): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [];
  const int = (key: typeof searchAttributes.CompanyId, value: number | undefined) => {
    if (value !== undefined && value !== null) pairs.push({ key, value });
  };
  const keyword = (key: typeof searchAttributes.EndpointId, value: string | number | undefined) => {
    if (value !== undefined && value !== null && value !== '') pairs.push({ key, value: String(value) });
  };
  int(searchAttributes.CompanyId, subject.companyId);
  int(searchAttributes.DocumentId, subject.documentId);
  int(searchAttributes.UploadedFileId, subject.uploadedFileId);
  keyword(searchAttributes.EndpointId, subject.endpointId);
  keyword(searchAttributes.EventType, subject.eventType);
  keyword(searchAttributes.Cufe, subject.cufe);
  keyword(searchAttributes.DianEventCode, subject.dianEventCode);
  keyword(searchAttributes.ExportId, subject.exportId);
  return pairs;
}
