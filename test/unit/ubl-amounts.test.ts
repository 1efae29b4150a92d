import test from 'ava';
import { isDecimal, sumDecimals } from '../../domain/ubl/amounts';
import { parseIsoDate, toUtcInstant } from '../../domain/ubl/dates';

test('sums are exact and keep the largest number of decimals (at least 2)', (t) => {
  t.is(sumDecimals(['2394.01', '30.00']), '2424.01');
  t.is(sumDecimals(['0.1', '0.2']), '0.30'); // 0.30000000000000004 with floats
  t.is(sumDecimals(['1.005', '2']), '3.005');
  t.is(sumDecimals(['0.00']), '0.00');
  t.is(sumDecimals(['190000']), '190000.00');
  t.is(sumDecimals(['-5.50', '2.25']), '-3.25');
  t.is(sumDecimals(['-0.01', '0.001']), '-0.009');
  t.is(sumDecimals(['99999999999999999999.99', '0.01']), '100000000000000000000.00');
  t.is(sumDecimals([]), '0.00');
});

test('only plain decimal text is a decimal', (t) => {
  for (const good of ['0', '0.00', '12600.06', '-1.5', '+3']) t.true(isDecimal(good), good);
  for (const bad of ['', '1e3', '1,5', '1.000,00', '.5', '5.', 'NaN', ' 1']) t.false(isDecimal(bad), bad);
  t.throws(() => sumDecimals(['1', 'x']), { instanceOf: RangeError });
});

test('dates: calendar check and UTC instants', (t) => {
  t.is(parseIsoDate('2024-02-29'), '2024-02-29');
  t.is(parseIsoDate('2023-02-29'), null);
  t.is(parseIsoDate('2019-06-21T00:00:00'), '2019-06-21');
  t.is(parseIsoDate('21/06/2019'), null);
  t.is(toUtcInstant('2019-06-21', '09:15:23-05:00'), '2019-06-21T14:15:23.000Z');
  t.is(toUtcInstant('2019-06-21', '21:15:23-05:00'), '2019-06-22T02:15:23.000Z');
  t.is(toUtcInstant('2019-06-21', '09:15:23+01:00'), '2019-06-21T08:15:23.000Z');
  t.is(toUtcInstant('2019-06-21', '09:15:23.5-0500'), '2019-06-21T14:15:23.500Z');
  t.is(toUtcInstant('2019-06-21', '09:15:23'), '2019-06-21T14:15:23.000Z');
  t.is(toUtcInstant('2019-06-21', null), '2019-06-21T05:00:00.000Z');
});
