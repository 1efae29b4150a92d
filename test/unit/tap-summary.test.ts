import test from 'ava';
import { summariseTap } from '../../scripts/tap-summary';

test('counts passes, failures and skips from TAP test points', (t) => {
  const tap = ['TAP version 13', 'ok 1 - a', 'not ok 2 - b', 'ok 3 - c # SKIP', 'ok 4 - d', '# tests 4'].join('\n');
  t.deepEqual(summariseTap(tap, 1), { passed: 2, failed: 1, skipped: 1 });
});

test('a runner that fails without a failing test point counts one failure', (t) => {
  t.deepEqual(summariseTap('ok 1 - a\n', 1), { passed: 1, failed: 1, skipped: 0 });
});
