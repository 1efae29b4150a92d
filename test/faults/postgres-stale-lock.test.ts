import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import test from 'ava';
import pg from 'pg';
import { freePort } from '../../scripts/embedded/ports';
import { startEmbeddedPostgres, watchPostmaster } from '../../scripts/embedded/postgres';

// After a reboot or a container restart, the postmaster.pid left by a cluster killed with it can
// name a pid that another program now has. `npm start` must still start Postgres (pg_ctl status
// calls such a cluster running, and Postgres refuses a lock file naming a live process).
test('a postmaster.pid naming a pid another program now runs does not keep the embedded Postgres from starting', async (t) => {
  const dataDir = path.join(await mkdtemp(path.join(os.tmpdir(), 'stale-lock-')), 'postgres');
  const port = await freePort();
  const first = await startEmbeddedPostgres({ dataDir, port, throwaway: true });
  const lockFile = path.join(dataDir, 'postmaster.pid');
  const lock = await readFile(lockFile, 'utf8');
  await first.stop();
  const stranger = spawn('sleep', ['60'], { stdio: 'ignore' });
  t.teardown(async () => {
    stranger.kill('SIGKILL');
    await startEmbeddedPostgres({ dataDir, port, throwaway: true }).then((cluster) => cluster.stop(), () => undefined);
    await rm(path.dirname(dataDir), { recursive: true, force: true });
  });
  // The lock file as the killed cluster left it, its pid now another program's.
  await writeFile(lockFile, [String(stranger.pid), ...lock.split('\n').slice(1)].join('\n'));
  const watch = watchPostmaster(dataDir, 100);
  const seen = await Promise.race([watch.stopped.then(() => 'no postmaster'), delay(3_000).then(() => 'a postmaster')]);
  watch.unwatch();
  t.is(seen, 'no postmaster', 'the restart watch does not take that program for the postmaster');

  const logged: string[] = [];
  const again = await startEmbeddedPostgres({ dataDir, port, throwaway: true, log: (line) => logged.push(line) });
  t.true(again.startedHere);
  t.true(logged.some((line) => line.includes('its pid now runs another program')));
  const client = new pg.Client({ connectionString: again.url() });
  await client.connect();
  t.is((await client.query('select 1 as one')).rows[0].one, 1);
  await client.end();
  await again.stop();
});
