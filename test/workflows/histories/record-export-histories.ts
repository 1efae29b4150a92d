import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { workflowIdsFor } from '../../../workflows/messages';
import { jsonClient, seedCompany, seedKey, startTestApi, type TestApi } from '../../support/api';
import { fixture, upload, waitForImport } from '../../support/ingestion';
import { startReceiver } from '../../support/receiver';
import { startTestWorker, type TestWorker } from '../../support/worker';
import { FAKE_ALEGRA_EMAIL, FAKE_ALEGRA_TOKEN, FAKE_CATEGORY_ID, startFakeAlegra, type FakeAlegra } from '../../../testing/fake-accounting/alegra';

// Records the v2-export-*.binpb histories of exportDocumentWorkflowV2 replayed by
// test/workflows/webhook-replay.test.ts (recorded by the commit that added this file, after
// decision 0018 made exports start the V2 type): an export that succeeds, one refused by the
// accounting software (not retried), one that succeeds on its second attempt, and one cancelled
// while it waits to retry. To record new ones, copy this file to a name ending in .test.ts and
// run it with `npm test -- <file>`.
let api: TestApi;
let worker: TestWorker;
let alegra: FakeAlegra;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let key: string;
let company: { id: number };

test.before(async () => {
  alegra = await startFakeAlegra({ taxes: [{ id: '1', name: 'IVA 19%', percentage: '19.00', type: 'IVA', status: 'active' }, { id: '2', name: 'IVA 16%', percentage: '16.00', type: 'IVA', status: 'active' }] });
  api = await startTestApi({ ALEGRA_BASE_URL: alegra.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
  worker = await startTestWorker(api.database, api.config);
  receiver = await startReceiver();
  company = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin' })).key;
});
test.after.always(async () => {
  await worker?.stop();
  await receiver?.close();
  await api?.close();
  await alegra?.close();
});

async function save(name: string, exportId: number) {
  const handle = api.temporal.client.workflow.getHandle(workflowIdsFor(api.config.temporal.taskQueue).exportDocument(exportId));
  await handle.result().catch(() => undefined);
  const history = await handle.fetchHistory();
  await writeFile(path.resolve(__dirname, `${name}.binpb`), temporal.api.history.v1.History.encode(history).finish());
}

test.serial('record', async (t) => {
  t.timeout(120_000);
  const call = jsonClient(api.url, key);
  t.is((await call('POST', `/v1/companies/${company.id}/webhooks`, { url: receiver.url, events: [] })).status, 201);
  t.is((await call('POST', `/v1/companies/${company.id}/integrations`, {
    name: 'alegra', provider: 'alegra', credentials: { email: FAKE_ALEGRA_EMAIL, token: FAKE_ALEGRA_TOKEN }, settings: { category_id: FAKE_CATEGORY_ID },
  })).status, 201);
  const invoice = await upload(api.url, key, company.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  const documentId = (await waitForImport(api.url, key, company.id, invoice.body.id)).documents[0].id as number;
  const exportOnce = async (force: boolean) => {
    // A fresh Alegra account each time: its duplicate-number rule would refuse the re-export.
    alegra.state.bills.length = 0;
    const accepted = await call('POST', `/v1/companies/${company.id}/invoices/${documentId}/export`, { integration: 'alegra', ...(force ? { force: true } : {}) });
    t.is(accepted.status, 202, JSON.stringify(accepted.body));
    return accepted.body!.id as number;
  };

  await save('v2-export-succeeded', await exportOnce(false));

  alegra.failNext(1, 400, undefined, { message: 'La fecha no es válida', code: 400 });
  await save('v2-export-refused-not-retried', await exportOnce(true));

  alegra.failNext(1, 503);
  await save('v2-export-succeeded-on-attempt-2', await exportOnce(true));

  alegra.failNext(1, 503);
  const before = alegra.state.requests.length;
  const cancelled = await exportOnce(true);
  while (alegra.state.requests.length === before) await new Promise((resolve) => setTimeout(resolve, 50));
  await api.temporal.client.workflow.getHandle(workflowIdsFor(api.config.temporal.taskQueue).exportDocument(cancelled)).cancel();
  await save('v2-export-cancelled-waiting-to-retry', cancelled);
});
