/**
 * DIAN's BulkDocumentDownloadAsync refuses a range whose end is more than a configured number of
 * days after its start ("supera el rango máximo de fechas permitido (3 meses)"; DIAN's service
 * compares `(end - start).TotalDays` with that setting). A longer import range is asked for in
 * consecutive windows. Pure: no I/O.
 */

/**
 * Days between a window's first and last day. DIAN's own limit is a setting we cannot read; 89
 * (90 calendar days, first and last included) stays under any reading of "3 months".
 */
export const DIAN_BULK_WINDOW_MAX_SPAN_DAYS = 89;

/** Why a range import cannot run against DIAN's real environments when the bulk download is off. */
export const LISTING_NOT_SUPPORTED_MESSAGE =
  'DIAN\'s web service has no confirmed listing operation: upload the "documentos recibidos" export (CSV or XLSX) as `file`, ' +
  'or have the deployment turn on DIAN\'s assumed bulk download (DIAN_BULK_LISTING=assumed, docs/dian.md).';

/**
 * The longest range one listing run covers, first and last day included: ten years (3,653 days,
 * leap days counted), longer than any period a company keeps its documents for. With DIAN's bulk
 * download a run asks window by window (at most 41 of them then), so a range of centuries would
 * be tens of thousands of requests in one workflow. An uploaded export is not listed: its range
 * only filters it, so it is not capped.
 */
export const MAX_LISTED_RANGE_DAYS = 3_653;

export type ListingWindow = { from: string; to: string };

const DAY_MS = 86_400_000;

function dayNumber(date: string): number {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) throw new RangeError(`not a YYYY-MM-DD date: ${date}`);
  const value = Date.parse(`${date}T00:00:00Z`);
  if (Number.isNaN(value) || new Date(value).toISOString().slice(0, 10) !== date) throw new RangeError(`not a calendar date: ${date}`);
  return value / DAY_MS;
}

function dateOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** Calendar days in [from, to] (YYYY-MM-DD, inclusive): 1 for a single day. */
export function daysInRange(from: string, to: string): number {
  return dayNumber(to) - dayNumber(from) + 1;
}

/**
 * [from, to] (inclusive, YYYY-MM-DD) cut into consecutive windows whose span (last day minus
 * first day) is at most `maxSpanDays`, oldest first; together they cover every day exactly once.
 */
export function listingWindows(from: string, to: string, maxSpanDays: number = DIAN_BULK_WINDOW_MAX_SPAN_DAYS): ListingWindow[] {
  if (!Number.isInteger(maxSpanDays) || maxSpanDays < 0) throw new RangeError(`maxSpanDays must be a whole number ≥ 0, got ${maxSpanDays}`);
  const first = dayNumber(from);
  const last = dayNumber(to);
  if (last < first) throw new RangeError(`the range ends (${to}) before it starts (${from})`);
  const windows: ListingWindow[] = [];
  for (let start = first; start <= last; start += maxSpanDays + 1) {
    windows.push({ from: dateOf(start), to: dateOf(Math.min(start + maxSpanDays, last)) });
  }
  return windows;
}
