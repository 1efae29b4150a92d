import type { DocumentFilters } from '../../../db/repositories/documents';
import { invalidParameter } from '../../errors';
import { parseIdParam } from '../../middleware/company-scope';
import { singleQueryValue as single } from '../../validation';

const DATE = /^\d{4}-\d{2}-\d{2}$/;
// Colombia has no daylight saving: a calendar day there starts at 05:00 UTC.
const BOGOTA_OFFSET = '-05:00';

function dayStart(value: string, param: string): Date {
  const date = new Date(`${value}T00:00:00${BOGOTA_OFFSET}`);
  if (!DATE.test(value) || Number.isNaN(date.getTime())) throw invalidParameter(param, `${param} must be a date as YYYY-MM-DD.`);
  const [year, month, day] = value.split('-').map(Number);
  if (new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) throw invalidParameter(param, `${param} is not a calendar date.`);
  return date;
}

/**
 * The list filters (docs/api.md): issued_from / issued_to (Colombian calendar dates, inclusive),
 * synced, contact_id, kind. Returns the filters and a canonical string that binds cursors to them.
 */
export function readDocumentFilters(query: Record<string, unknown>): { filters: DocumentFilters; canonical: string } {
  const filters: DocumentFilters = {};
  const issuedFrom = single(query, 'issued_from');
  const issuedTo = single(query, 'issued_to');
  const synced = single(query, 'synced');
  const contactId = single(query, 'contact_id');
  const kind = single(query, 'kind');
  if (issuedFrom) filters.issuedFrom = dayStart(issuedFrom, 'issued_from');
  if (issuedTo) filters.issuedBefore = new Date(dayStart(issuedTo, 'issued_to').getTime() + 24 * 60 * 60 * 1000);
  if (filters.issuedFrom && filters.issuedBefore && filters.issuedFrom >= filters.issuedBefore) {
    throw invalidParameter('issued_to', 'issued_to must not be before issued_from.');
  }
  if (synced !== undefined) {
    if (synced !== 'true' && synced !== 'false') throw invalidParameter('synced', 'synced must be true or false.');
    filters.synced = synced === 'true';
  }
  if (contactId !== undefined) filters.contactId = parseIdParam(contactId, 'contact_id');
  if (kind !== undefined) {
    if (kind !== 'purchase' && kind !== 'sale') throw invalidParameter('kind', 'kind must be purchase or sale.');
    filters.kind = kind;
  }
  const canonical = [issuedFrom ?? '', issuedTo ?? '', synced ?? '', contactId ?? '', kind ?? ''].join('|');
  return { filters, canonical };
}
