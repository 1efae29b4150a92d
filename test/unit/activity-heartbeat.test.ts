import test from 'ava';
import { MockActivityEnvironment } from '@temporalio/testing';
import { heartbeatAfter, type Heartbeat } from '../../activities/heartbeat';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('an activity heartbeats only once it has run its grace: a quick one sends none', async (t) => {
  const environment = new MockActivityEnvironment();
  const sent: unknown[] = [];
  environment.on('heartbeat', (details: unknown) => sent.push(details));
  await environment.run(async () => {
    const heartbeat = heartbeatAfter(80);
    heartbeat('reading');
    heartbeat({ entry: 1 });
    t.deepEqual(sent, [], 'within the grace');
    await tick(100);
    heartbeat({ entry: 2 });
    heartbeat(7);
  });
  t.deepEqual(sent, [{ entry: 2 }, 7]);
});

test('each activity counts its grace from its own start', async (t) => {
  const environment = new MockActivityEnvironment();
  const sent: unknown[] = [];
  environment.on('heartbeat', (details: unknown) => sent.push(details));
  const early: Heartbeat = await environment.run(async () => heartbeatAfter(60));
  await tick(80);
  await environment.run(async () => heartbeatAfter(60)('second activity, just started'));
  early('first activity, past its grace');
  t.deepEqual(sent, ['first activity, past its grace']);
});

test('outside an activity it does nothing (the import called directly by tests and tools)', (t) => {
  t.notThrows(() => heartbeatAfter(0)('anything'));
});
