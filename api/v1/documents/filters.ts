import { z } from 'zod';
import type { DocumentFilters } from '../../../db/repositories/documents';
import { parseQuery } from '../../validation';
import { calendarDate, idParam } from '../openapi/common';

// Colombia has no daylight saving: a calendar day there starts at 05:00 UTC.
const BOGOTA_OFFSET = '-05:00';
const DAY_MS = 24 * 60 * 60 * 1000;

/** The list filters of every document collection (docs/api.md), as the OpenAPI document shows them. */
export const documentFilterQuery = z.object({
  issued_from: calendarDate('issued_from').meta({ description: 'First Colombian calendar day (UTC-05:00) of issue, inclusive.' }).optional(),
  issued_to: calendarDate('issued_to').meta({ description: 'Last Colombian calendar day of issue, inclusive. Before issued_from, the list is empty.' }).optional(),
  synced: z.enum(['true', 'false'], { error: 'synced must be true or false.' }).optional(),
  contact_id: idParam.optional(),
  kind: z.enum(['purchase', 'sale'], { error: 'kind must be purchase or sale.' }).optional(),
  has_warnings: z
    .enum(['true', 'false'], { error: 'has_warnings must be true or false.' })
    .meta({ description: 'true: only documents with warnings (totals that contradict each other); false: only those without any (consistent, or never checked).' })
    .optional(),
});

const dayStart = (value: string) => new Date(`${value}T00:00:00${BOGOTA_OFFSET}`);

/**
 * The list filters: issued_from / issued_to (Colombian calendar dates, inclusive), synced,
 * contact_id, kind, has_warnings. Returns the filters and a canonical string that binds cursors to them.
 */
export function readDocumentFilters(query: Record<string, unknown>): { filters: DocumentFilters; canonical: string } {
  const input = parseQuery(documentFilterQuery, query);
  const filters: DocumentFilters = {};
  if (input.issued_from) filters.issuedFrom = dayStart(input.issued_from);
  if (input.issued_to) filters.issuedBefore = new Date(dayStart(input.issued_to).getTime() + DAY_MS);
  if (input.synced !== undefined) filters.synced = input.synced === 'true';
  if (input.contact_id !== undefined) filters.contactId = input.contact_id;
  if (input.kind !== undefined) filters.kind = input.kind;
  if (input.has_warnings !== undefined) filters.hasWarnings = input.has_warnings === 'true';
  // has_warnings joins only when given, so a cursor issued before the filter existed still reads.
  const given = input.has_warnings === undefined ? [] : [input.has_warnings];
  const canonical = [input.issued_from ?? '', input.issued_to ?? '', input.synced ?? '', input.contact_id ?? '', input.kind ?? '', ...given].join('|');
  return { filters, canonical };
}
