import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { freePort } from '../../scripts/embedded/ports';
import { postmasterPid, startEmbeddedPostgres } from '../../scripts/embedded/postgres';

// `npm start` stopping (Ctrl-C, SIGTERM) while its Postgres is frozen (SIGSTOP, a stalled disk):
// pg_ctl gives up after PGCTLTIMEOUT (60 s; 3 s here) and the server keeps running. The stop
// said nothing of it and the supervisor exited as after a clean stop, Postgres still holding its
// port and DATA_DIR (measured on npm start: a 60 s wait, then silence).
test('a stop that leaves a frozen Postgres running says so', async (t) => {
  const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'frozen-stop-')), 'postgres');
  const logged: string[] = [];
  const cluster = await startEmbeddedPostgres({ dataDir, port: await freePort(), throwaway: true, log: (line) => logged.push(line) });
  const pid = postmasterPid(dataDir)!;
  const previousTimeout = process.env.PGCTLTIMEOUT;
  t.teardown(async () => {
    try {
      process.kill(pid, 'SIGCONT');
    } catch {
      // stopped already
    }
    if (previousTimeout === undefined) delete process.env.PGCTLTIMEOUT;
    else process.env.PGCTLTIMEOUT = previousTimeout;
    await cluster.stop();
    await rm(path.dirname(dataDir), { recursive: true, force: true });
  });

  process.env.PGCTLTIMEOUT = '3'; // read by the pg_ctl the stop runs
  process.kill(pid, 'SIGSTOP');
  await cluster.stop();
  const line = logged.find((entry) => entry.startsWith('postgres did not stop'));
  t.truthy(line, `a line about the server left running, in:\n${logged.join('\n')}`);
  t.true(line!.includes(`left running on ${dataDir}`));

  // A stop of a cluster that is not running (stopped already, killed) stays silent.
  process.kill(pid, 'SIGCONT');
  await cluster.stop();
  logged.length = 0;
  await cluster.stop();
  t.deepEqual(logged, []);
});
