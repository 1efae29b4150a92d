import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import test from 'ava';
import nodemailer from 'nodemailer';
import { isAlive, runRecordPath } from '../../scripts/embedded/run-record';
import { bearer } from '../support/api';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { waitForImport } from '../support/ingestion';
import { launchNpmStart, npmStartEnvironment, postgresPid, reapNpmStart, signalLikeATerminal, waitUntil, type StartEnvironment } from '../support/npm-start';

// `npm start` as a user runs it, with real processes: the supervisor, its api/worker/intake
// children, the embedded Postgres and the SQLite-backed Temporal dev server.
let environment: StartEnvironment;

test.before(async () => {
  environment = await npmStartEnvironment();
});
test.after.always(async () => {
  if (environment) await reapNpmStart(environment.dataDir);
});

async function healthy(apiUrl: string): Promise<boolean> {
  try {
    return (await fetch(`${apiUrl}/healthz`)).status === 200;
  } catch {
    return false;
  }
}

test('a part killed with -9 comes back while the others keep working; a crashed npm start leaves nothing behind the next one', async (t) => {
  t.timeout(330_000);
  const first = await launchNpmStart(environment);
  const key = first.demoKey;
  if (!key) throw new Error(`no demo key in:\n${first.output()}`);
  const { parts, temporal } = first.record();
  t.truthy(parts.api && parts.worker && parts.intake && temporal);
  t.is(new Set([parts.api, parts.worker, parts.intake, first.process.pid]).size, 4, 'each part is a process of its own');
  const companies = (await (await fetch(`${environment.apiUrl}/v1/companies`, { headers: bearer(key) })).json()) as { id: number; inbox_email: string }[];
  const { id: companyId, inbox_email: inbox } = companies[0];

  // 1. kill -9 the API: SMTP still accepts, the worker still imports, the API comes back.
  process.kill(parts.api, 'SIGKILL');
  await waitUntil(() => !isAlive(parts.api), 5_000, 'the API to die');
  t.false(await healthy(environment.apiUrl), 'the API is down');
  const transport = nodemailer.createTransport({ host: '127.0.0.1', port: environment.smtpPort, secure: false, ignoreTLS: true });
  const sent = await transport.sendMail({
    from: 'facturacion@proveedor.example',
    to: inbox,
    subject: 'Factura while the API is down',
    attachments: [{ filename: 'FE-MAIL-1.xml', content: demoInvoiceXml('FE-MAIL-1', createHash('sha384').update('mail-1').digest('hex'), '800197268', '900108281') }],
  });
  transport.close();
  t.regex(sent.response, /^250 .*1 file\(s\) accepted/);
  await waitUntil(() => healthy(environment.apiUrl), 60_000, 'the API to come back');
  const restarted = first.record().parts;
  t.not(restarted.api, parts.api, 'a new API process');
  t.is(restarted.worker, parts.worker, 'the worker was not touched');
  t.is(restarted.intake, parts.intake, 'the intake was not touched');
  t.regex(first.output(), /api \(pid \d+\) was killed by SIGKILL after [\d.]+ s; restarting in 1 s \(restart 1\)/);
  const files = (await (await fetch(`${environment.apiUrl}/v1/companies/${companyId}/files?limit=50`, { headers: bearer(key) })).json()) as { data: { id: number; type: string }[] };
  const mailed = files.data.find((file) => file.type === 'EMAIL');
  t.truthy(mailed, 'the e-mailed file is there');
  t.is((await waitForImport(environment.apiUrl, key, companyId, mailed!.id)).status, 'DONE');

  // 2. kill -9 the supervisor: its parts stop by themselves (their IPC channel closed);
  // Postgres (daemonised by pg_ctl) and the Temporal dev server are left until the next start.
  const crashed = first.record();
  const oldPostgres = postgresPid(environment.dataDir);
  t.truthy(oldPostgres);
  first.process.kill('SIGKILL');
  await first.exited;
  await waitUntil(() => Object.values(crashed.parts).every((pid) => !isAlive(pid)), 35_000, 'the parts to stop with their supervisor');

  const second = await launchNpmStart(environment);
  t.regex(second.output(), /stopped the Temporal dev server \(pid \d+\) left by an npm start that crashed/);
  t.regex(second.output(), /stopped the postgres left running on .* by an earlier start/);
  t.false(isAlive(crashed.temporal!), 'the old Temporal dev server is gone');
  t.false(isAlive(oldPostgres!), 'the old Postgres is gone');
  const current = second.record();
  t.not(current.temporal, crashed.temporal);
  t.not(postgresPid(environment.dataDir), oldPostgres);
  t.true(await healthy(environment.apiUrl));
  // The data survived: the e-mailed document is still there.
  const again = await fetch(`${environment.apiUrl}/v1/companies/${companyId}/files/${mailed!.id}`, { headers: bearer(key) });
  t.is(((await again.json()) as { status: string }).status, 'DONE');

  // 3. Ctrl-C, as a terminal sends it: SIGINT to every process of the foreground group. Temporal,
  // in a session of its own, outlives the workers, which drain without a failed call to it; then everything
  // stops, nothing is left, the record is removed.
  const running = [current.temporal!, ...Object.values(current.parts), postgresPid(environment.dataDir)!];
  const interrupted = signalLikeATerminal(second.process.pid!, 'SIGINT');
  t.false(interrupted.includes(current.temporal!), 'Temporal is out of the terminal\'s reach');
  t.deepEqual(await second.exited, { code: 0, signal: null });
  await waitUntil(() => running.every((pid) => !isAlive(pid)), 15_000, 'every process to stop');
  t.false(existsSync(runRecordPath(environment.dataDir)));
  t.notRegex(second.output(), /rpc errored|retried \d+ times|Connection refused/, 'the workers never found Temporal gone');

  // 4. The terminal closed (SIGHUP, to the session's foreground group): the same orderly stop.
  const third = await launchNpmStart(environment);
  const lastRunning = [third.record().temporal!, ...Object.values(third.record().parts), postgresPid(environment.dataDir)!];
  signalLikeATerminal(third.process.pid!, 'SIGHUP');
  t.deepEqual(await third.exited, { code: null, signal: 'SIGHUP' }, 'it stopped everything, then died of the hang-up');
  await waitUntil(() => lastRunning.every((pid) => !isAlive(pid)), 15_000, 'every process to stop');
  t.regex(third.output(), /SIGHUP: shutting down…/);
  t.false(existsSync(runRecordPath(environment.dataDir)));
});
