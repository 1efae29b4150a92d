/**
 * Colombian business days for RADIAN's deadlines: Monday to Friday except national holidays,
 * with the Emiliani law's moves to Monday (holidays from the `colombian-holidays` library).
 * Dates are Colombian calendar days (UTC-5, no daylight saving). Pure: no I/O.
 */
import { getHolidaysForYear } from 'colombian-holidays';

/** Business days after the receipt (032) within which 033 may be sent (rule DC24c). */
export const EXPRESS_ACCEPTANCE_BUSINESS_DAYS = 3;

const holidayCache = new Map<number, Set<string>>();

function holidays(year: number): Set<string> {
  let set = holidayCache.get(year);
  if (!set) {
    set = new Set(getHolidaysForYear(year).map((holiday) => holiday.celebrationDate));
    holidayCache.set(year, set);
  }
  return set;
}

/** The Colombian calendar day (YYYY-MM-DD) of an instant. */
export function colombianDate(instant: Date): string {
  return new Date(instant.getTime() - 5 * 3_600_000).toISOString().slice(0, 10);
}

export function isColombianBusinessDay(date: string): boolean {
  const day = new Date(`${date}T12:00:00Z`);
  const weekday = day.getUTCDay();
  return weekday !== 0 && weekday !== 6 && !holidays(day.getUTCFullYear()).has(date);
}

/** The `count`-th business day after `date` (which itself never counts). */
export function addColombianBusinessDays(date: string, count: number): string {
  const day = new Date(`${date}T12:00:00Z`);
  let left = count;
  while (left > 0) {
    day.setUTCDate(day.getUTCDate() + 1);
    if (isColombianBusinessDay(day.toISOString().slice(0, 10))) left--;
  }
  return day.toISOString().slice(0, 10);
}

/**
 * The last Colombian day on which 033 (aceptación expresa) can be registered after a 032
 * registered at `receiptAt`; after it the invoice is tacitly accepted.
 */
export function expressAcceptanceDeadline(receiptAt: Date): string {
  return addColombianBusinessDays(colombianDate(receiptAt), EXPRESS_ACCEPTANCE_BUSINESS_DAYS);
}

/** Whether 033 at `now` is late for a 032 registered at `receiptAt`. */
export function isTacitlyAccepted(receiptAt: Date, now: Date): boolean {
  return colombianDate(now) > expressAcceptanceDeadline(receiptAt);
}
