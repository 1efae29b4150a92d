import { existsSync } from 'node:fs';
import test from 'ava';
import { isAlive, runRecordPath } from '../../scripts/embedded/run-record';
import { demoElectronicInvoice } from '../../admin/demo-documents';
import { bearer } from '../support/api';
import { waitForImport } from '../support/ingestion';
import { launchNpmStart, npmStartEnvironment, postgresPid, reapNpmStart, waitUntil, type StartEnvironment } from '../support/npm-start';

// `npm run start:cluster` as a user runs it (README, "The production topology"): the Temporal
// server and its UI server on the embedded Postgres, two API replicas behind the balancer on
// PORT, two workers, the intake. A worker killed with -9 mid-burst loses no upload; SIGTERM
// leaves no process behind; the next start on the same DATA_DIR keeps the data.
// (test/e2e/cluster-scale.test.ts measures the engine without the supervisor.)
const UPLOADS = 20;
const KILL_AFTER = 6;
let environment: StartEnvironment;

test.before(async () => {
  environment = await npmStartEnvironment();
});
test.after.always(async () => {
  if (environment) await reapNpmStart(environment.dataDir);
});

async function upload(key: string, number: string): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(demoElectronicInvoice(number, '800197268', '900108281').xml)], { type: 'application/xml' }), `${number}.xml`);
  const response = await fetch(`${environment.apiUrl}/v1/companies/1/files`, { method: 'POST', headers: bearer(key), body: form });
  if (response.status !== 202) throw new Error(`upload ${number}: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { id: number }).id;
}

test('start:cluster runs the documented processes, a worker killed mid-burst loses nothing, SIGTERM stops everything and the data outlives it', async (t) => {
  t.timeout(420_000);
  const entry = 'scripts/start-cluster.ts';
  const first = await launchNpmStart(environment, 240_000, entry);
  const key = first.demoKey;
  if (!key) throw new Error(`no demo key in:\n${first.output()}`);
  const record = first.record();
  t.deepEqual(Object.keys(record.parts).sort(), ['api-1', 'api-2', 'intake', 'worker-1', 'worker-2']);
  const processes = [record.supervisor, record.temporal!, record.temporalUi!, ...Object.values(record.parts)];
  t.is(new Set(processes).size, 8, 'each part, the server and the UI server are processes of their own');
  t.regex(first.output(), /Temporal:\s+127\.0\.0\.1:\d+ \(Temporal server on Postgres, 4 history shards\)/);
  t.regex(first.output(), /API replicas on 127\.0\.0\.1:\d+, 127\.0\.0\.1:\d+, balanced round robin/);
  t.is((await fetch(`http://127.0.0.1:${environment.env.TEMPORAL_UI_PORT}/api/v1/settings`)).status, 200, 'the UI server answers');

  // A burst of uploads through the balancer, worker-1 killed with -9 in the middle of it.
  const ids: number[] = [];
  for (let n = 0; n < UPLOADS; n += 1) {
    ids.push(await upload(key, `CL${n}`));
    if (n + 1 === KILL_AFTER) process.kill(record.parts['worker-1']!, 'SIGKILL');
  }
  const imported = await Promise.all(ids.map((id) => waitForImport(environment.apiUrl, key, 1, id, 180_000)));
  t.deepEqual(imported.map((file) => file.status), ids.map(() => 'DONE'), 'every upload imported');
  t.is(new Set(imported.flatMap((file) => (file.documents as { id: number }[]).map((document) => document.id))).size, UPLOADS, 'one document each');
  t.regex(first.output(), /worker-1 \(pid \d+\) was killed by SIGKILL after [\d.]+ s; restarting in 1 s \(restart 1\)/);
  await waitUntil(() => first.record().parts['worker-1'] !== record.parts['worker-1'], 30_000, 'worker-1 to be restarted');
  const deep = await fetch(`${environment.apiUrl}/healthz?deep=true`);
  t.is(deep.status, 200, await deep.clone().text());

  // SIGTERM to the supervisor (README): every process stops, the run record goes.
  const running = [...Object.values(first.record().parts), record.temporal!, record.temporalUi!, postgresPid(environment.dataDir)!];
  first.process.kill('SIGTERM');
  t.deepEqual(await first.exited, { code: 0, signal: null });
  await waitUntil(() => running.every((pid) => !isAlive(pid)), 15_000, 'every process to stop');
  t.false(existsSync(runRecordPath(environment.dataDir)));

  // The next start on the same DATA_DIR: no second demo, the imported files are there.
  const second = await launchNpmStart(environment, 240_000, entry);
  t.is(second.demoKey, null, 'the demo is created on the first run only');
  const files = (await (await fetch(`${environment.apiUrl}/v1/companies/1/files?limit=100`, { headers: bearer(key) })).json()) as { data: { id: number; status: string }[] };
  t.deepEqual(ids.map((id) => files.data.find((file) => file.id === id)?.status), ids.map(() => 'DONE'));
  t.is((await waitForImport(environment.apiUrl, key, 1, await upload(key, 'CL-AGAIN'))).status, 'DONE', 'and it imports again');
  const again = [...Object.values(second.record().parts), second.record().temporal!, second.record().temporalUi!, postgresPid(environment.dataDir)!];
  second.process.kill('SIGTERM');
  t.deepEqual(await second.exited, { code: 0, signal: null });
  await waitUntil(() => again.every((pid) => !isAlive(pid)), 15_000, 'every process to stop');
});
