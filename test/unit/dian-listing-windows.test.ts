import test from 'ava';
import { daysInRange, DIAN_BULK_WINDOW_MAX_SPAN_DAYS, listingWindows, MAX_LISTED_RANGE_DAYS } from '../../domain/dian/listing-windows';

const span = (window: { from: string; to: string }) => (Date.parse(window.to) - Date.parse(window.from)) / 86_400_000;

test('a range within three months is one window', (t) => {
  t.deepEqual(listingWindows('2026-09-01', '2026-11-23'), [{ from: '2026-09-01', to: '2026-11-23' }]);
  t.deepEqual(listingWindows('2026-11-23', '2026-11-23'), [{ from: '2026-11-23', to: '2026-11-23' }]);
});

test('a 90-day range is one window; 91 days are two', (t) => {
  t.deepEqual(listingWindows('2026-01-01', '2026-03-31'), [{ from: '2026-01-01', to: '2026-03-31' }]);
  t.deepEqual(listingWindows('2026-01-01', '2026-04-01'), [
    { from: '2026-01-01', to: '2026-03-31' },
    { from: '2026-04-01', to: '2026-04-01' },
  ]);
});

test('a year is cut into consecutive windows that cover every day once, none longer than DIAN allows', (t) => {
  const windows = listingWindows('2025-11-24', '2026-11-23');
  t.is(windows.length, 5);
  t.is(windows[0]!.from, '2025-11-24');
  t.is(windows.at(-1)!.to, '2026-11-23');
  for (const window of windows) t.true(span(window) <= DIAN_BULK_WINDOW_MAX_SPAN_DAYS);
  for (let i = 1; i < windows.length; i++) t.is(span({ from: windows[i - 1]!.to, to: windows[i]!.from }), 1, 'next window starts the day after');
  t.is(windows.reduce((days, window) => days + span(window) + 1, 0), 365);
});

test('leap days and month ends are calendar days', (t) => {
  t.deepEqual(listingWindows('2028-02-28', '2028-03-01', 1), [
    { from: '2028-02-28', to: '2028-02-29' },
    { from: '2028-03-01', to: '2028-03-01' },
  ]);
});

test('invalid input is refused', (t) => {
  t.throws(() => listingWindows('2026-03-02', '2026-03-01'), { instanceOf: RangeError });
  t.throws(() => listingWindows('2026-02-30', '2026-03-01'), { instanceOf: RangeError });
  t.throws(() => listingWindows('2026-01-01', '2026-03-01', -1), { instanceOf: RangeError });
});

test('daysInRange counts both ends; ten years is the listing cap', (t) => {
  t.is(daysInRange('2026-11-25', '2026-11-25'), 1);
  t.is(daysInRange('2024-02-28', '2024-03-01'), 3, 'a leap day counts');
  t.is(daysInRange('2015-01-01', '2024-12-31'), MAX_LISTED_RANGE_DAYS, 'ten years with their leap days');
  t.is(listingWindows('2015-01-01', '2024-12-31').length, 41);
  t.throws(() => daysInRange('2024-02-30', '2024-03-01'), { instanceOf: RangeError });
});
