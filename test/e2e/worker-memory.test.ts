import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { emitEvent } from '../../api/publish-event';
import { RSS_BUDGET_MB, RssSampler } from '../../bench/support/child-process';
import { createRepositories } from '../../db/repositories';
import { seedKey, spawnWorkerProcess, startTestApi, type TestApi } from '../support/api';
import { upload, waitForImport } from '../support/ingestion';
import { startReceiver } from '../support/receiver';
import { webhookAdmin } from '../support/webhook-api';

// The memory budget of issue 13 as a test: the real worker process, compiled as `npm start` runs
// it (no tsx, the prebuilt workflow bundle, so no webpack), takes a small burst of imports and
// deliveries while its RSS (/proc, the CPU pool's threads included) stays within the budget.
// A budget, not a timing: how fast the burst goes does not matter.
const FILES = 50;
const EVENTS = 50;
let api: TestApi;

test.before(async () => {
  api = await startTestApi();
});
test.after.always(async () => api?.close());

const linux = process.platform === 'linux';

(linux ? test : test.skip)(`the compiled worker stays within ${RSS_BUDGET_MB} MiB RSS through a burst of imports and deliveries`, async (t) => {
  t.timeout(300_000);
  const admin = await webhookAdmin(api.database, api.url);
  await api.database.db('companies').where({ id: admin.company.id }).update({ nit: '900108281' });
  const { key } = await seedKey(api.database, { scopes: ['documents:read', 'documents:write'] });
  const receiver = await startReceiver();
  await admin.createEndpoint(receiver.url);
  const worker = spawnWorkerProcess(api, { CPU_POOL_IDLE_MS: '60000' });
  const sampler = new RssSampler(worker.pid!, 100);
  sampler.start();
  try {
    const commandLine = (await readFile(`/proc/${worker.pid}/cmdline`, 'utf8')).split('\0').join(' ');
    if (process.env.COMPILED_PARTS_DIR) t.notRegex(commandLine, /tsx/, 'the worker runs compiled JavaScript');

    const fileIds: number[] = [];
    for (let i = 0; i < FILES; i += 1) {
      const cufe = createHash('sha384').update(`memory-${i}`).digest('hex');
      const accepted = await upload(api.url, key, admin.company.id, { name: `FE${i}.xml`, bytes: demoInvoiceXml(`FE${i}`, cufe, '800197268', '900108281') });
      fileIds.push(accepted.body.id);
    }
    const temporal = { client: api.temporal.client, taskQueue: api.config.temporal.taskQueue };
    const repositories = createRepositories(api.database.db);
    for (let i = 0; i < EVENTS; i += 1) await emitEvent({ repositories, temporal }, { companyId: admin.company.id, type: 'contact.created', data: { id: i } });

    for (const id of fileIds) t.is((await waitForImport(api.url, key, admin.company.id, id, 240_000)).status, 'DONE');
    // Every event (the emitted ones and each import's document events) reaches the endpoint.
    await receiver.waitFor(EVENTS + FILES, 120_000);

    const peak = await sampler.phasePeakMb();
    t.log(`worker peak RSS ${peak?.toFixed(0)} MiB over ${FILES} files and ${receiver.received.length} deliveries (budget ${RSS_BUDGET_MB} MiB)`);
    t.truthy(peak, 'RSS was sampled');
    t.true(peak! <= RSS_BUDGET_MB, `peak ${peak?.toFixed(0)} MiB is above the ${RSS_BUDGET_MB} MiB budget`);
  } finally {
    sampler.stop();
    worker.kill('SIGKILL');
    await receiver.close();
  }
});
