import test from 'ava';
import { keepRunning, type WatchedService } from '../../scripts/embedded/kept-running';
import { RESTART_POLICY } from '../../scripts/restart-policy';

const FAST = { ...RESTART_POLICY, initialDelayMs: 10, maxDelayMs: 40, healthyAfterMs: 60_000 };

/** A service whose death the test decides; `starts` fail while `refuse` is set. */
function fakeServices() {
  const instances: { pid: number; die(): void; stopped: boolean }[] = [];
  const state = { refuse: false, starts: 0 };
  const start = async (): Promise<WatchedService> => {
    state.starts += 1;
    if (state.refuse) throw new Error('port in use\nsee its log');
    let die = () => undefined as void;
    const exited = new Promise<void>((resolve) => (die = resolve));
    const instance = { pid: 100 + instances.length, die, stopped: false };
    instances.push(instance);
    return { pid: instance.pid, exited, stop: async () => void (instance.stopped = true) };
  };
  return { instances, state, start };
}

const until = async (condition: () => boolean) => {
  for (let i = 0; i < 500 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  if (!condition()) throw new Error('condition never held');
};

test('a service that dies is started again; the caller hears the new one; failed restarts wait longer each time', async (t) => {
  const { instances, state, start } = fakeServices();
  const lines: string[] = [];
  const restarted: number[] = [];
  const kept = await keepRunning('postgres', start, { log: (line) => lines.push(line), restarted: (service) => restarted.push(service.pid!) }, FAST);
  t.is(kept.current().pid, 100);

  state.refuse = true;
  instances[0].die();
  await until(() => state.starts >= 3);
  state.refuse = false;
  await until(() => instances.length === 2);
  t.is(kept.current().pid, 101);
  t.deepEqual(restarted, [101]);
  t.true(instances[0].stopped, 'what the dead one held was released');
  t.deepEqual(lines.slice(1, 3), [
    'postgres could not start again: port in use see its log; restarting it in 0.02 s (restart 2)',
    'postgres could not start again: port in use see its log; restarting it in 0.04 s (restart 3)',
  ]);
  t.regex(lines[0], /^postgres \(pid 100\) stopped unexpectedly after [\d.]+ s; restarting it in 0.01 s \(restart 1\)$/);
  t.is(lines.at(-1), 'postgres is back (pid 101)');
  await kept.stop();
  t.true(instances[1].stopped);
});

test('stopping it for good: no restart afterwards, even with one pending', async (t) => {
  const { instances, state, start } = fakeServices();
  const kept = await keepRunning('temporal', start, { log: () => undefined }, { ...FAST, initialDelayMs: 50 });
  instances[0].die();
  await new Promise((resolve) => setTimeout(resolve, 10));
  await kept.stop();
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.is(state.starts, 1, 'the pending restart never ran');
  t.true(instances[0].stopped);

  const second = fakeServices();
  const quiet = await keepRunning('temporal', second.start, { log: () => undefined }, FAST);
  await quiet.stop();
  second.instances[0].die(); // its own stop, as the process exits
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.is(second.state.starts, 1, 'a stop asked for is not a crash');
});
