import path from 'node:path';
import test from 'ava';
import { ensureTemporalCli } from '../../scripts/provision/temporal-cli';
import { isAlive } from '../../scripts/embedded/run-record';
import { startTemporalDevServer } from '../../scripts/embedded/temporal-dev-server';
import { launchNpmStart, npmStartEnvironment, reapNpmStart, waitUntil, type StartEnvironment } from '../support/npm-start';

// A supervisor killed (-9, OOM) while its Temporal dev server was starting leaves that server
// running in a session of its own with no pid in the run record (the pid is recorded once the
// server answers). The next `npm start` used such a server as it found it ("Temporal already
// listening … using it"): nobody's, so when it died it was never restarted (the API's /healthz
// degraded for good, imports stalled) and a clean stop left it running on the ports.
let environment: StartEnvironment;
let orphanPid: number | undefined;

test.before(async () => {
  // No SMTP intake (not needed here): the dev servers started below take random ports of their
  // own, one of which could be the SMTP port picked free beforehand.
  environment = await npmStartEnvironment({ SMTP_PORT: '0' });
});
test.after.always(async () => {
  if (orphanPid && isAlive(orphanPid)) process.kill(orphanPid, 'SIGKILL');
  if (environment) await reapNpmStart(environment.dataDir);
});

test('a Temporal dev server a crashed start left on DATA_DIR, unrecorded, is replaced by one npm start keeps running', async (t) => {
  t.timeout(330_000);
  const { dataDir, env } = environment;
  // What the killed supervisor had started: the same command on the same file and ports.
  const orphan = await startTemporalDevServer({
    cliPath: await ensureTemporalCli(),
    port: Number(env.TEMPORAL_DEV_PORT),
    uiPort: Number(env.TEMPORAL_UI_PORT),
    dbFile: path.join(dataDir, 'temporal', 'dev-server.sqlite'),
    logFile: path.join(dataDir, 'temporal', 'dev-server.log'),
    ownSession: true,
  });
  orphanPid = orphan.pid!;

  const started = await launchNpmStart(environment);
  t.regex(started.output(), new RegExp(`stopped the Temporal dev server \\(pid ${orphanPid}\\) left running on .*dev-server\\.sqlite by an earlier start`));
  await waitUntil(() => !isAlive(orphanPid!), 15_000, 'the orphaned dev server to stop');
  const { temporal } = started.record();
  t.truthy(temporal, 'the run record names the dev server npm start runs');
  t.not(temporal, orphanPid);

  // Its own server is kept running: killed, it comes back.
  process.kill(temporal!, 'SIGKILL');
  await waitUntil(() => /the Temporal dev server is back \(pid \d+\)/.test(started.output()), 60_000, 'the dev server to be restarted');
  const healthy = async () => (await fetch(`${environment.apiUrl}/healthz`).catch(() => null))?.status === 200;
  await waitUntil(healthy, 60_000, '/healthz to be 200 again');

  started.process.kill('SIGTERM');
  await started.exited;
  const restarted = /the Temporal dev server is back \(pid (\d+)\)/.exec(started.output())![1];
  t.false(isAlive(Number(restarted)), 'a clean stop leaves no dev server behind');
});
