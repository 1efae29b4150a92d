import test from 'ava';
import { MockActivityEnvironment } from '@temporalio/testing';
import { activityHeartbeat, withHeartbeatsAfter } from '../../activities/heartbeat';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function recordingEnvironment(info?: ConstructorParameters<typeof MockActivityEnvironment>[0]) {
  const environment = new MockActivityEnvironment(info);
  const sent: unknown[] = [];
  environment.on('heartbeat', (details: unknown) => sent.push(details));
  return { environment, sent };
}

test('an activity that ends within its grace sends no heartbeat, whatever it reports', async (t) => {
  const { environment, sent } = recordingEnvironment();
  const result = await environment.run(() =>
    withHeartbeatsAfter(1_000, async (heartbeat) => {
      heartbeat('reading');
      heartbeat({ entry: 1 });
      await tick(20);
      return 'imported';
    }),
  );
  t.is(result, 'imported');
  await tick(1_100);
  t.deepEqual(sent, [], 'nothing sent, and nothing after the end either');
});

test('past its grace it heartbeats the latest details at once, then on its own every interval, and stops at its end', async (t) => {
  const { environment, sent } = recordingEnvironment();
  await environment.run(() =>
    withHeartbeatsAfter(
      50,
      async (heartbeat) => {
        heartbeat({ step: 'read' });
        // A long silent stretch (one large parse in the CPU pool): the keepalive covers it.
        await tick(400);
        heartbeat({ step: 'parsed' });
        await tick(10);
      },
      60,
    ),
  );
  const ended = sent.length;
  t.deepEqual(sent[0], { step: 'read' }, 'at the end of the grace, the details reported within it');
  t.true(sent.filter((details) => (details as { step: string }).step === 'read').length >= 3, `keepalives while silent: ${JSON.stringify(sent)}`);
  t.deepEqual(sent.at(-1), { step: 'parsed' });
  await tick(150);
  t.is(sent.length, ended, 'no heartbeat after the activity ended');
});

test('a failing activity stops heartbeating too', async (t) => {
  const { environment, sent } = recordingEnvironment();
  await t.throwsAsync(environment.run(() => withHeartbeatsAfter(30, async () => {
    await tick(50);
    throw new Error('database down');
  }, 20)), { message: 'database down' });
  const ended = sent.length;
  t.true(ended >= 1);
  await tick(80);
  t.is(sent.length, ended);
});

test('outside an activity the work runs with a heartbeat that does nothing (the import called directly by tests and tools)', async (t) => {
  t.notThrows(() => activityHeartbeat()('anything'));
  t.is(await withHeartbeatsAfter(0, async (heartbeat) => (heartbeat('x'), 7)), 7);
});

test('activityHeartbeat forwards every call at once (a DIAN batch heartbeats its resume point)', async (t) => {
  const { environment, sent } = recordingEnvironment();
  await environment.run(async () => {
    const heartbeat = activityHeartbeat();
    heartbeat(3);
    heartbeat(4);
  });
  t.deepEqual(sent, [3, 4]);
});

test('a local activity (an inline import, decision 0019) never heartbeats: the server does not track it', async (t) => {
  const { environment, sent } = recordingEnvironment({ isLocal: true });
  const result = await environment.run(() =>
    withHeartbeatsAfter(
      20,
      async (heartbeat) => {
        heartbeat({ step: 'read' });
        await tick(120);
        heartbeat({ step: 'parsed' });
        return 'imported';
      },
      30,
    ),
  );
  t.is(result, 'imported');
  t.deepEqual(sent, []);
  await environment.run(async () => activityHeartbeat()('a direct call'));
  t.deepEqual(sent, [], 'nor a direct call');
});
