import test from 'ava';
import {
  addColombianBusinessDays,
  colombianDate,
  expressAcceptanceDeadline,
  isColombianBusinessDay,
  isTacitlyAccepted,
} from '../../domain/dian/business-days';

test('Colombian calendar days are UTC-5', (t) => {
  t.is(colombianDate(new Date('2026-11-14T04:59:59Z')), '2026-11-13');
  t.is(colombianDate(new Date('2026-11-14T05:00:00Z')), '2026-11-14');
});

test('weekends and national holidays (moved to Monday by the Emiliani law) are not business days', (t) => {
  t.false(isColombianBusinessDay('2026-11-14'), 'Saturday');
  t.false(isColombianBusinessDay('2026-11-15'), 'Sunday');
  // Independencia de Cartagena (11 Nov, a Wednesday in 2026) is celebrated on Monday 16 Nov.
  t.false(isColombianBusinessDay('2026-11-16'));
  t.true(isColombianBusinessDay('2026-11-11'));
  t.false(isColombianBusinessDay('2026-12-08'), 'Inmaculada Concepción, not moved');
  t.false(isColombianBusinessDay('2026-12-25'));
  t.false(isColombianBusinessDay('2027-01-01'));
  t.false(isColombianBusinessDay('2026-04-02'), 'Jueves Santo 2026');
});

test('033 is allowed until the third business day after the 032 (DC24c), then the invoice is tacitly accepted', (t) => {
  // 032 on Friday 13 Nov 2026 at 16:00 Colombia: Mon 16 is a holiday → Tue 17, Wed 18, Thu 19.
  const receipt = new Date('2026-11-13T21:00:00Z');
  t.is(expressAcceptanceDeadline(receipt), '2026-11-19');
  t.false(isTacitlyAccepted(receipt, new Date('2026-11-20T04:59:00Z')), 'Thursday 23:59 in Colombia');
  t.true(isTacitlyAccepted(receipt, new Date('2026-11-20T05:00:00Z')), 'Friday 00:00 in Colombia');
  // Over the year's end: 24 Dec 2026 (Thu) → Mon 28, Tue 29, Wed 30 (25 Dec is a holiday).
  t.is(addColombianBusinessDays('2026-12-24', 3), '2026-12-30');
  t.is(addColombianBusinessDays('2026-12-30', 2), '2027-01-04');
});
