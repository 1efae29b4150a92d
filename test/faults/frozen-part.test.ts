import { createHash } from 'node:crypto';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { isAlive } from '../../scripts/embedded/run-record';
import { upload } from '../support/ingestion';
import { launchNpmStart, npmStartEnvironment, reapNpmStart, waitUntil, type NpmStart, type StartEnvironment } from '../support/npm-start';

// A part frozen (SIGSTOP; a wedged event loop looks the same from outside) keeps its IPC channel
// and ports open: until 2026-11-25 the supervisor never noticed, and a frozen worker held every
// upload's import and delivery for as long as it stayed frozen (measured on npm start: a worker
// frozen 70 s mid-burst, /healthz?deep=true 503 throughout, nothing restarted). Now a ready part
// that stops reporting for PART_UNRESPONSIVE_SECONDS is killed and restarted.
let environment: StartEnvironment;
let start: NpmStart;
let frozen: number | undefined;

test.before(async () => {
  environment = await npmStartEnvironment({ SMTP_PORT: '0', PART_UNRESPONSIVE_SECONDS: '5' });
  start = await launchNpmStart(environment);
});
test.after.always(async () => {
  if (frozen && isAlive(frozen)) process.kill(frozen, 'SIGKILL');
  if (environment) await reapNpmStart(environment.dataDir);
});

test('a frozen worker is killed and restarted by the supervisor; the uploads accepted meanwhile are imported', async (t) => {
  t.timeout(240_000);
  frozen = start.record().parts.worker!;
  process.kill(frozen, 'SIGSTOP');
  const frozenAt = Date.now();
  const ids: number[] = [];
  for (let i = 0; i < 5; i += 1) {
    const cufe = createHash('sha384').update(`frozen-part-${i}`).digest('hex');
    const answer = await upload(environment.apiUrl, start.demoKey!, 1, { name: `FE-FROZEN-${i}.xml`, bytes: demoInvoiceXml(`FE-FROZEN-${i}`, cufe, '800197268', '900108281') });
    t.is(answer.status, 202);
    ids.push(answer.body.id as number);
  }
  await waitUntil(() => new RegExp(`\\[start\\] worker \\(pid ${frozen}\\) has not answered for [\\d.]+ s; killing it`).test(start.output()), 60_000, 'the supervisor to kill the frozen worker');
  const noticedAfter = Date.now() - frozenAt;
  await waitUntil(() => !isAlive(frozen!), 10_000, 'the frozen worker to die');
  const restarting = new RegExp(`\\[start\\] worker \\(pid ${frozen}\\) was killed by SIGKILL after [\\d.]+ s; restarting in 1 s \\(restart 1\\)`);
  await waitUntil(() => restarting.test(start.output()), 10_000, 'the supervisor to restart it');
  await waitUntil(() => start.record().parts.worker !== frozen, 60_000, 'a new worker');

  const imported = async () => {
    const states = await Promise.all(ids.map(async (id) => {
      const response = await fetch(`${environment.apiUrl}/v1/companies/1/files/${id}`, { headers: { Authorization: `Bearer ${start.demoKey}` } });
      return ((await response.json()) as { status: string }).status;
    }));
    return states.every((status) => status === 'DONE');
  };
  await waitUntil(imported, 90_000, 'the uploads to be imported');
  const line = `worker frozen, killed after ${(noticedAfter / 1000).toFixed(1)} s: accepted ${ids.length} / completed ${ids.length} / lost 0`;
  t.log(line);
  console.log(`[faults] ${line}`);
  t.true(noticedAfter < 30_000, 'noticed within a few seconds of the 5 s limit');
  // The API, which kept reporting, was left alone.
  t.notRegex(start.output(), /\[start\] api \(pid \d+\) has not answered/);
});
