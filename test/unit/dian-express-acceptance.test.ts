import test from 'ava';
import { expressAcceptance } from '../../domain/dian/express-acceptance';

// The invoice's 032, accepted by DIAN on Friday 13 Nov 2026 at 16:00 in Colombia: 033 may be
// registered until Thursday 19 Nov (Monday 16 is a holiday), DIAN rule DC24c.
const receipt = { event: '032', status: 'succeeded', completed_at: new Date('2026-11-13T21:00:00Z'), signed_xml_blob_key: 'k/032.xml', issued_at: new Date('2026-11-13T20:59:00Z'), error_code: null };
/** A 033 of ours that ended failed: `issuedAt` when it was signed, `signed` whether it went out. */
const failed033 = (issuedAt: string | null, signed = true) => ({
  event: '033', status: 'failed', completed_at: new Date('2026-11-20T12:00:00Z'),
  signed_xml_blob_key: signed ? 'k/033.xml' : null, issued_at: issuedAt ? new Date(issuedAt) : null, error_code: 'dian_unavailable' as string | null,
});
const afterWindow = new Date('2026-11-26T15:00:00Z');
const lastDay = new Date('2026-11-20T04:59:00Z'); // Thursday 19 Nov, 23:59 in Colombia

test('inside the window a 033 is sent, earlier attempts or not', (t) => {
  t.deepEqual(expressAcceptance([receipt], [], lastDay), { allows: 'send' });
  t.deepEqual(expressAcceptance([receipt, failed033('2026-11-18T15:00:00Z')], [], lastDay), { allows: 'send' });
});

test('after the window, with no earlier attempt that went out inside it, a 033 is refused with the tacitly_accepted message', (t) => {
  const cases = [
    [receipt],
    // Failed before it was signed: it never went out.
    [receipt, failed033('2026-11-18T15:00:00Z', false)],
    // Signed on Friday 20 Nov at 00:00 in Colombia: after the deadline, DIAN refused it (DC24c).
    [receipt, failed033('2026-11-20T05:00:00Z')],
    // Still pending, not ended (the API answers event_in_progress before this rule).
    [receipt, { ...failed033('2026-11-18T15:00:00Z'), status: 'pending' }],
    // Another event's failed attempt.
    [receipt, { ...failed033('2026-11-18T15:00:00Z'), event: '032' }],
    // Inside the window but refused by DIAN (its StatusCode, none, or another sender's number): DIAN does not hold it.
    [receipt, { ...failed033('2026-11-18T15:00:00Z'), error_code: '99' }],
    [receipt, { ...failed033('2026-11-18T15:00:00Z'), error_code: 'rejected' }],
    [receipt, { ...failed033('2026-11-18T15:00:00Z'), error_code: 'dian_duplicate_event_number' }],
  ];
  for (const ours of cases) {
    const decision = expressAcceptance(ours, [], afterWindow);
    t.is(decision.allows, 'refuse', JSON.stringify(ours));
    t.regex((decision as { message: string }).message, /tacitly accepted.*until 2026-11-19 \(032 registered 2026-11-13\)/);
  }
});

test('after the window, an earlier 033 that went out inside it (its answer lost) may only be confirmed: DIAN may hold it', (t) => {
  // Signed on the last day at 23:59 in Colombia: its IssueDate is inside the window.
  for (const issuedAt of ['2026-11-18T15:00:00Z', '2026-11-20T04:59:00Z']) {
    const decision = expressAcceptance([receipt, failed033('2026-11-20T05:00:00Z'), failed033(issuedAt)], [], afterWindow);
    t.is(decision.allows, 'confirm', issuedAt);
    t.regex((decision as { message: string }).message, /until 2026-11-19 \(032 registered 2026-11-13\)/);
  }
});

test('the window closed by a 034 at DIAN: refused, earlier attempts or not (DIAN cannot hold a 033 beside it)', (t) => {
  const tacit = [{ event: '034', effective_date: '2026-11-20' }];
  t.is(expressAcceptance([receipt, failed033('2026-11-18T15:00:00Z')], tacit, lastDay).allows, 'refuse');
  t.is(expressAcceptance([receipt], tacit, lastDay).allows, 'refuse');
  const receiptDayUnknown = [{ event: '032', effective_date: null }, ...tacit];
  t.is(expressAcceptance([failed033('2026-11-18T15:00:00Z')], receiptDayUnknown, lastDay).allows, 'refuse');
});

test('after the window, attempts whose outcome is unknown may be confirmed (lost answer, timeout, interrupted, our outage)', (t) => {
  for (const code of ['dian_unavailable', 'dian_timeout', 'interrupted', 'cancelled', 'service_unavailable', null]) {
    t.is(expressAcceptance([receipt, { ...failed033('2026-11-18T15:00:00Z'), error_code: code }], [], afterWindow).allows, 'confirm', String(code));
  }
});
