/**
 * Rule DC24c: 033 (aceptación expresa) only within 3 Colombian business days of the invoice's
 * 032; after that, or once DIAN lists a 034, the invoice is tacitly accepted. Used by the API
 * before queuing a 033 and by the sending activity before sending it. Pure.
 */
import { addColombianBusinessDays, colombianDate, EXPRESS_ACCEPTANCE_BUSINESS_DAYS } from './business-days';

/** One of our events (dian_events) and one DIAN lists for the invoice (dian_registered_events). */
type OurEvent = { event: string; status: string; completed_at: Date | null };
type ListedAtDian = { event: string; effective_date: string | null };
/** One of our events with what tells whether and when it went out (signed file, issue instant). */
type OurAttempt = OurEvent & { signed_xml_blob_key: string | null; issued_at: Date | null; error_code: string | null };

/**
 * The codes an attempt fails with when DIAN answered it with a refusal: its StatusCode (`99`…),
 * `rejected` when DIAN gave none, or `dian_duplicate_event_number` (its number was another
 * sender's): DIAN does not hold such an attempt. Every other failure leaves it unknown.
 */
const REFUSED_BY_DIAN = /^(\d+|rejected|dian_duplicate_event_number)$/;

/** The Colombian day an event was first registered: ours when DIAN accepted it, DIAN's EffectiveDate otherwise. */
export function registeredOn(code: string, ours: readonly OurEvent[], atDian: readonly ListedAtDian[]): string | null {
  const days = [
    ...ours.filter((row) => row.event === code && row.status === 'succeeded' && row.completed_at).map((row) => colombianDate(row.completed_at!)),
    ...atDian.filter((row) => row.event === code && row.effective_date).map((row) => row.effective_date!),
  ].sort();
  return days[0] ?? null;
}

export type ExpressAcceptanceWindow = { open: true } | { open: false; receipt: string | null; deadline: string | null; message: string };

export function expressAcceptanceWindow(ours: readonly OurEvent[], atDian: readonly ListedAtDian[], now: Date): ExpressAcceptanceWindow {
  const receipt = registeredOn('032', ours, atDian);
  const deadline = receipt ? addColombianBusinessDays(receipt, EXPRESS_ACCEPTANCE_BUSINESS_DAYS) : null;
  const tacitAtDian = atDian.some((row) => row.event === '034');
  if (!tacitAtDian && !(deadline && colombianDate(now) > deadline)) return { open: true };
  return {
    open: false,
    receipt,
    deadline,
    message:
      `The invoice is tacitly accepted: event 033 (aceptación expresa) can be sent only within ${EXPRESS_ACCEPTANCE_BUSINESS_DAYS} Colombian business days ` +
      `of the 032 (DIAN rule DC24c)${deadline ? `, that is until ${deadline} (032 registered ${receipt})` : ''}. No event is needed: the supplier may register 034.`,
  };
}

/**
 * What DC24c still allows a new 033: `send` it (the window is open); only `confirm` an earlier
 * attempt (the window closed, but one of our 033s went out inside it and ended failed — its
 * answer lost, its retries exhausted, its worker stopped —, so DIAN may hold it, and only DIAN can
 * say: the new event asks and adopts it, or fails with `message`); or nothing (`refuse`, with
 * `message`). An attempt went out when it has a signed file; it was inside the window when the
 * Colombian day of its issue instant (its IssueDate, what DIAN checks) is on or before the
 * deadline. DIAN does not hold an attempt it answered with a refusal (REFUSED_BY_DIAN), nor any
 * 033 once it lists the invoice's 034 (tacit acceptance): both are refused without asking.
 */
export type ExpressAcceptance = { allows: 'send' } | { allows: 'confirm' | 'refuse'; message: string };

export function expressAcceptance(ours: readonly OurAttempt[], atDian: readonly ListedAtDian[], now: Date): ExpressAcceptance {
  const window = expressAcceptanceWindow(ours, atDian, now);
  if (window.open) return { allows: 'send' };
  const { deadline, message } = window;
  // A 034 at DIAN: the invoice is tacitly accepted there, which it cannot be with a 033 of ours.
  if (atDian.some((row) => row.event === '034')) return { allows: 'refuse', message };
  const mayBeHeld = ours.some(
    (row) =>
      row.event === '033' && row.status === 'failed' && row.signed_xml_blob_key && !REFUSED_BY_DIAN.test(row.error_code ?? '') &&
      row.issued_at && deadline && colombianDate(row.issued_at) <= deadline,
  );
  return { allows: mayBeHeld ? 'confirm' : 'refuse', message };
}
