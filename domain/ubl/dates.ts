/**
 * IssueDate / IssueTime handling. DIAN writes the date as YYYY-MM-DD and the time as
 * HH:MM:SS with an offset (09:15:23-05:00); a time without an offset is Colombian time.
 */

export const COLOMBIA_OFFSET = '-05:00';

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIME = /^(\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i;

/** Returns the YYYY-MM-DD date when `value` is a real calendar date (a trailing time part is dropped). */
export function parseIsoDate(value: string | null): string | null {
  if (!value) return null;
  const candidate = value.trim().slice(0, 10);
  const match = DATE.exec(candidate);
  if (!match) return null;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return null;
  return candidate;
}

function offsetMinutes(offset: string): number {
  if (offset.toUpperCase() === 'Z') return 0;
  const sign = offset[0] === '-' ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  return sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
}

/**
 * The instant of `date` + `time` as an ISO 8601 UTC string. The time's own offset is honoured;
 * without one, or without a (readable) time, Colombian time (-05:00) and midnight are assumed.
 */
export function toUtcInstant(date: string, time: string | null): string {
  const [year, month, day] = date.split('-').map(Number);
  const match = time ? TIME.exec(time.trim()) : null;
  let hours = 0;
  let minutes = 0;
  let seconds = 0;
  let millis = 0;
  let offset = offsetMinutes(COLOMBIA_OFFSET);
  if (match && Number(match[1]) < 24 && Number(match[2]) < 60 && Number(match[3] ?? '0') < 61) {
    hours = Number(match[1]);
    minutes = Number(match[2]);
    seconds = Math.min(Number(match[3] ?? '0'), 59);
    millis = Number((match[4] ?? '0').slice(0, 3).padEnd(3, '0'));
    if (match[5]) offset = offsetMinutes(match[5]);
  }
  const local = Date.UTC(year, month - 1, day, hours, minutes, seconds, millis);
  return new Date(local - offset * 60_000).toISOString();
}
