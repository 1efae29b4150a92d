import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { Client, Connection } from '@temporalio/client';
import { workflowIdsFor } from '../../../workflows/messages';
import { seedCompany } from '../../support/api';
import { testTemporalAddress } from '../../support/database';
import { startDianWorld, type DianWorld } from '../../support/dian-world';
import { fixture, paddedXml, upload, waitForImport } from '../../support/ingestion';

// Records the import histories replayed by test/workflows/ingestion-replay.test.ts. The committed
// ones were recorded at commit da90be3, BEFORE the import workflow gathered its data in one
// activity and ran the DIAN-side steps only when needed (patch 'lean-import') and before DIAN
// runs imported their documents in batches (patch 'dian-import-batches'): they prove that runs
// started by older code still replay. The v2-*.binpb ones were recorded by the commit that added
// importFileWorkflowV2 (decision 0018), the v3-*.binpb ones by the commit that added
// importFileWorkflowV3 (decision 0019: small files import inline; 'import-over-inline-limit' is a
// file the V3 type imports in an activity task). To record new ones, copy this file to a name
// ending in .test.ts, set PREFIX, and run it with `npm test -- <file>`.
let world: DianWorld;
let client: Client;
test.before(async () => {
  world = await startDianWorld();
  client = new Client({ connection: await Connection.connect({ address: testTemporalAddress() }), namespace: world.api.config.temporal.namespace });
});
test.after.always(async () => {
  await client?.connection.close();
  await world?.close();
});

/** Names the recorded histories after the code that recorded them ('v3-', …). */
const PREFIX = '';

async function save(name: string, workflowId: string) {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await writeFile(path.resolve(__dirname, 'ingestion', `${PREFIX}${name}.binpb`), temporal.api.history.v1.History.encode(history).finish());
}

test.serial('record', async (t) => {
  const ids = workflowIdsFor(world.worker.taskQueue);
  const buyer = world.company.id;

  // 1. a company with DIAN settings: imported, a contact created, the DIAN-side steps run
  const invoice = await upload(world.api.url, world.key, buyer, { name: 'invoice.xml', bytes: fixture('invoice-signed-setp.xml') });
  t.is((await waitForImport(world.api.url, world.key, buyer, invoice.body.id)).status, 'DONE');
  await client.workflow.getHandle(ids.importFile(invoice.body.id)).result();
  await save('import-dian-company-invoice', ids.importFile(invoice.body.id));

  // 2. a file that fails (neither party is the company)
  const other = await upload(world.api.url, world.key, buyer, { name: 'other.xml', bytes: fixture('toolbox-free-samples.xml') });
  t.is((await waitForImport(world.api.url, world.key, buyer, other.body.id)).status, 'ERROR');
  await client.workflow.getHandle(ids.importFile(other.body.id)).result();
  await save('import-failed', ids.importFile(other.body.id));

  // 3. a company without DIAN settings: a sale, its customer a contact
  const seller = await seedCompany(world.api.database, 'Pruebas Factura', '2022516219');
  const sale = await upload(world.api.url, world.key, seller.id, { name: 'sale.xml', bytes: fixture('toolbox-other-currency.xml') });
  t.is((await waitForImport(world.api.url, world.key, seller.id, sale.body.id)).status, 'DONE');
  await client.workflow.getHandle(ids.importFile(sale.body.id)).result();
  await save('import-no-dian-settings', ids.importFile(sale.body.id));

  // 4. a sale past the inline-import limit (decision 0019): the same XML behind a 600 KiB comment
  const large = await upload(world.api.url, world.key, seller.id, { name: 'sale-padded.xml', bytes: paddedXml(fixture('toolbox-other-currency.xml'), 600 * 1024) });
  t.is((await waitForImport(world.api.url, world.key, seller.id, large.body.id)).status, 'DONE');
  await client.workflow.getHandle(ids.importFile(large.body.id)).result();
  await save('import-over-inline-limit', ids.importFile(large.body.id));

  // 5. a DIAN import run by range: the simulator lists three, one already present
  const run = await world.call('POST', `/v1/companies/${buyer}/dian-imports`, { begin_date: '2019-01-01', end_date: '2024-12-31', document_type: 'all' });
  t.is(run.status, 202);
  await client.workflow.getHandle(ids.dianImport(run.body.id)).result();
  await save('dian-import-range-of-3', ids.dianImport(run.body.id));
});
