import { randomBytes } from 'node:crypto';
import os from 'node:os';
import { monitorEventLoopDelay, performance as perfHooks } from 'node:perf_hooks';
import test from 'ava';
import { zipOf } from '../../admin/demo-documents';
import { workflowIdsFor } from '../../workflows/messages';
import { seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { upload, waitForImport } from '../support/ingestion';
import { startTestWorker, type TestWorker } from '../support/worker';
import { eventually } from '../support/eventually';

// Issue 10: hostile XML must not stall the serving event loop. The API and the worker share this
// process (as `npm start` ran them), so any parsing on the main thread would show in its
// event-loop delay and in /healthz; parsing runs in the CPU pool (services/cpu/pool.ts) instead.
let api: TestApi;
let worker: TestWorker;
let key: string;
let company: { id: number };

test.before(async () => {
  api = await startTestApi();
  company = await seedCompany(api.database, 'Hostil S.A.S.', '900108281');
  key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write'], role: 'admin' })).key;
});
test.after.always(async () => {
  await worker?.stop();
  await api?.close();
});

const MB = 1024 * 1024;
const repeated = (unit: string, bytes: number) => Buffer.from(`<Invoice>${unit.repeat(Math.floor((bytes - 19) / unit.length))}</Invoice>`);
/** Just inside the element cap, with values that do not compress past the ZIP ratio limit. */
const heavyButAllowed = () =>
  Buffer.from(`<Invoice>${Array.from({ length: 200_000 }, () => `<a b="${randomBytes(6).toString('hex')}"/>`).join('')}</Invoice>`);

test('20 MB and 10 MB hostile XML (attribute-heavy, self-closing) and a ZIP of heavy XMLs: the event loop stays free and each ends as one clean import_failed', async (t) => {
  t.timeout(240_000);
  const files = [
    { name: 'attributes-20mb.xml', bytes: repeated('<a b="1" c="22" d="333" e="4444"/>', 19.5 * MB), code: 'xml_too_large' },
    { name: 'self-closing-20mb.xml', bytes: repeated('<a/>', 19.5 * MB), code: 'xml_too_large' },
    { name: 'attributes-10mb.xml', bytes: repeated('<a b="1" c="22" d="333" e="4444"/>', 9.9 * MB), code: 'xml_too_large' },
    { name: 'self-closing-10mb.xml', bytes: repeated('<a/>', 9.9 * MB), code: 'xml_too_large' },
    {
      name: 'heavy-entries.zip',
      bytes: zipOf(Array.from({ length: 6 }, (_, index) => ({ name: `heavy-${index}.xml`, data: heavyButAllowed() }))),
      code: 'missing_field',
    },
  ];
  // The same probing twice: first with nothing importing (the machine's own noise, and what the
  // probes themselves cost this loop), then while the hostile files are imported. The worker
  // starts only once every file is stored, so that the second window is all importing.
  const baseline = await whileProbing(new Promise<void>((resolve) => setTimeout(resolve, 3000)));
  const accepted: { id: number; name: string; code: string }[] = [];
  for (const file of files) {
    const answer = await upload(api.url, key, company.id, { name: file.name, bytes: file.bytes });
    t.is(answer.status, 202, `${file.name}: ${JSON.stringify(answer.body)}`);
    accepted.push({ id: answer.body.id, name: file.name, code: file.code });
  }

  worker = await startTestWorker(api.database, api.config);
  const importing = await whileProbing(
    eventually(async () => {
      const rows: { status: string }[] = await api.database.db('uploaded_files').whereIn('id', accepted.map((file) => file.id)).select('status');
      return rows.every((row) => row.status === 'DONE' || row.status === 'ERROR') ? true : undefined;
    }, 180_000).then(() => undefined),
  );
  const outcomes: Record<string, any>[] = [];
  for (const file of accepted) outcomes.push(await waitForImport(api.url, key, company.id, file.id));

  for (const [index, outcome] of outcomes.entries()) {
    const { name, code } = accepted[index];
    t.is(outcome.status, 'ERROR', name);
    t.is(outcome.error?.code, code, `${name}: ${JSON.stringify(outcome.error)}`);
    // One attempt of the import activity: no heartbeat timeout, no retry.
    const history = await api.temporal.client.workflow.getHandle(workflowIdsFor(api.config.temporal.taskQueue).importFile(outcome.id)).fetchHistory();
    const attempts = history.events!.filter((event) => event.activityTaskStartedEventAttributes).map((event) => event.activityTaskStartedEventAttributes!.attempt);
    t.is(attempts[0], 1, `${name}: import attempts ${JSON.stringify(attempts)}`);
  }
  t.log(`idle:      ${describe(baseline)}`);
  t.log(`importing: ${describe(importing)}`);
  t.true(importing.probes >= 3, 'health was probed while importing');
  // Parsing on this thread stalls it for seconds per file (10 MB of hostile XML took 10–16 s here);
  // off it, no single stall comes near a second even on a saturated machine.
  t.true(importing.max < 1000, `the event loop stalled for ${importing.max.toFixed(0)} ms at once`);
  // Issue 10's budgets: p99 under 50 ms and /healthz under 100 ms on a machine quiet enough to
  // show them. On a saturated machine (load above the core count: other test files and processes
  // on the same 2 cores) timers are late whatever this process does, and the import's own I/O
  // (Postgres, Temporal) queues for the CPU too, so there the bound is relative to the idle
  // window: three times its p99 (slowest probe) plus the budget.
  const quiet = os.loadavg()[0] < os.cpus().length && baseline.p99 <= 30;
  const delayBudget = quiet ? 50 : 3 * baseline.p99 + 50;
  const healthBudget = quiet ? 100 : 3 * baseline.slowestHealth + 100;
  t.log(quiet ? 'quiet machine: the absolute budgets apply' : `saturated machine (load ${os.loadavg()[0].toFixed(1)}): budgets relative to idle`);
  t.true(importing.p99 < delayBudget, `event-loop delay p99 ${importing.p99.toFixed(1)} ms (allowed ${delayBudget.toFixed(0)} ms)`);
  t.true(importing.slowestHealth < healthBudget, `/healthz took up to ${importing.slowestHealth.toFixed(0)} ms (allowed ${healthBudget.toFixed(0)} ms)`);
});

type Probed = { p99: number; max: number; utilisation: number; slowestHealth: number; probes: number };

const pct = (value: number) => `${(value * 100).toFixed(1)}%`;
const describe = (probed: Probed) =>
  `event-loop delay p99 ${probed.p99.toFixed(1)} ms, max ${probed.max.toFixed(1)} ms; loop busy ${pct(probed.utilisation)}; ` +
  `/healthz ${probed.probes} probes, slowest ${probed.slowestHealth.toFixed(0)} ms`;

/** Until `until` settles: this process's event-loop delay and utilisation, /healthz every 50 ms and the company's files every 150 ms. */
async function whileProbing(until: Promise<void>): Promise<Probed> {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const before = perfHooks.eventLoopUtilization();
  const healthTimes: number[] = [];
  let running = true;
  const probe = async (every: number, request: () => Promise<Response>, record?: (ms: number) => void) => {
    while (running) {
      const started = performance.now();
      await (await request()).arrayBuffer();
      record?.(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, every));
    }
  };
  const probes = [
    probe(50, () => fetch(`${api.url}/healthz`), (ms) => healthTimes.push(ms)),
    probe(150, () => fetch(`${api.url}/v1/companies/${company.id}/files?limit=10`, { headers: { authorization: `Bearer ${key}` } })),
  ];
  try {
    await until;
  } finally {
    running = false;
    await Promise.all(probes);
    delay.disable();
  }
  return {
    p99: delay.percentile(99) / 1e6,
    max: delay.max / 1e6,
    utilisation: perfHooks.eventLoopUtilization(before).utilization,
    slowestHealth: Math.max(...healthTimes),
    probes: healthTimes.length,
  };
}
