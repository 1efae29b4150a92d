import test from 'ava';
import { FileMemoryBudget, fileMemoryBudgetBytes } from '../../services/file-memory-budget';

const KiB = 1024;
const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A holder of `size` bytes that stays inside the budget until released. */
function holder(budget: FileMemoryBudget, size: number, log: string[], name: string, whileWaiting?: () => void) {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  const done = budget.withBytes(
    size,
    async () => {
      log.push(`${name} in`);
      await finished;
      log.push(`${name} out`);
    },
    whileWaiting,
    5,
  );
  return { finish, done };
}

test('small files hold their bytes side by side', async (t) => {
  const budget = new FileMemoryBudget(100 * KiB);
  const log: string[] = [];
  const a = holder(budget, 40 * KiB, log, 'a');
  const b = holder(budget, 40 * KiB, log, 'b');
  await tick(10);
  t.deepEqual(log, ['a in', 'b in']);
  t.is(budget.available(), 20 * KiB);
  a.finish();
  b.finish();
  await Promise.all([a.done, b.done]);
  t.is(budget.available(), 100 * KiB);
});

test('a file that does not fit waits, heartbeating, until enough bytes are freed; arrivals are served in order', async (t) => {
  const budget = new FileMemoryBudget(100 * KiB);
  const log: string[] = [];
  let beats = 0;
  const a = holder(budget, 70 * KiB, log, 'a');
  const big = holder(budget, 60 * KiB, log, 'big', () => (beats += 1));
  const small = holder(budget, 10 * KiB, log, 'small');
  await tick(40);
  t.deepEqual(log, ['a in'], 'the 60-byte file waits for the 70 held, and the later small one waits behind it');
  t.true(beats >= 1, `heartbeats while waiting: ${beats}`);
  a.finish();
  await tick(10);
  t.deepEqual(log, ['a in', 'a out', 'big in', 'small in']);
  const beatsWhenIn = beats;
  await tick(30);
  t.is(beats, beatsWhenIn, 'no heartbeat from the budget once admitted');
  big.finish();
  small.finish();
  await Promise.all([a.done, big.done, small.done]);
  t.is(budget.available(), 100 * KiB);
});

test('a file larger than the budget takes all of it, and a failing use gives its bytes back', async (t) => {
  const budget = new FileMemoryBudget(100 * KiB);
  const log: string[] = [];
  const a = holder(budget, 1, log, 'a');
  const huge = holder(budget, 10_000 * KiB, log, 'huge');
  await tick(10);
  t.deepEqual(log, ['a in']);
  a.finish();
  await tick(10);
  t.deepEqual(log, ['a in', 'a out', 'huge in']);
  t.is(budget.available(), 0);
  huge.finish();
  await Promise.all([a.done, huge.done]);
  await t.throwsAsync(budget.withBytes(50 * KiB, async () => { throw new Error('parse failed'); }), { message: 'parse failed' });
  t.is(budget.available(), 100 * KiB);
});

test('a release costs next to nothing, even for a budget of 1 GiB (async-mutex walks every free unit)', async (t) => {
  const budget = new FileMemoryBudget(1024 * 1024 * KiB);
  const started = performance.now();
  // Counted in KiB, each release walked a million units (about 3 ms): 2,000 took seconds.
  for (let i = 0; i < 2_000; i += 1) await budget.withBytes(20 * KiB, async () => undefined);
  t.true(performance.now() - started < 500, `2,000 uses took ${(performance.now() - started).toFixed(0)} ms`);
  t.is(budget.available(), 1024 * 1024 * KiB);
});

test('in a large budget a small file holds one unit (a 1,024th of it), and many fit side by side', async (t) => {
  const budget = new FileMemoryBudget(128 * 1024 * KiB);
  const log: string[] = [];
  const holders = Array.from({ length: 1_024 }, (_, i) => holder(budget, 3 * KiB, log, `f${i}`));
  await tick(10);
  t.is(log.length, 1_024, 'every small file is in');
  t.is(budget.available(), 0);
  const late = holder(budget, 3 * KiB, log, 'late');
  await tick(10);
  t.is(log.length, 1_024, 'the next one waits for a unit');
  holders[0]!.finish();
  await tick(10);
  t.true(log.includes('late in'));
  for (const each of [...holders, late]) each.finish();
  await Promise.all([...holders, late].map((each) => each.done));
  t.is(budget.available(), 128 * 1024 * KiB);
});

test('IMPORT_FILES_MEMORY_MB sizes the budget (64 MiB by default)', (t) => {
  t.is(fileMemoryBudgetBytes({}), 64 * 1024 * 1024);
  t.is(fileMemoryBudgetBytes({ IMPORT_FILES_MEMORY_MB: '8' }), 8 * 1024 * 1024);
  t.is(fileMemoryBudgetBytes({ IMPORT_FILES_MEMORY_MB: '' }), 64 * 1024 * 1024);
  t.throws(() => fileMemoryBudgetBytes({ IMPORT_FILES_MEMORY_MB: 'lots' }));
  t.throws(() => fileMemoryBudgetBytes({ IMPORT_FILES_MEMORY_MB: '0' }));
});
