import { createHash } from 'node:crypto';
import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { acceptFile } from '../../services/accept-file';
import { resumeUnfinishedImportsWorkflow } from '../../workflows/import-file';
import { freePort } from '../../scripts/embedded/ports';
import { seedCompany, seedKey, startTestApi, type TestApi, spawnWorkerProcess } from '../support/api';
import { upload, waitForImport } from '../support/ingestion';

// Imports survive a worker killed mid-burst (no document twice), and uploads stored while
// Temporal was unreachable are picked up by the reconciliation job.
const FILES = 16;
let api: TestApi;

test.before(async () => {
  api = await startTestApi();
});
test.after.always(async () => api?.close());


const cufeOf = (n: number) => createHash('sha384').update(`recovery-${n}`).digest('hex');

test.serial('a worker killed mid-import resumes without duplicates', async (t) => {
  t.timeout(240_000);
  const company = await seedCompany(api.database, 'Recuperación S.A.S.', '900108281');
  const { key } = await seedKey(api.database, { scopes: ['documents:read', 'documents:write'] });
  let worker = spawnWorkerProcess(api);
  try {
    const fileIds: number[] = [];
    for (let i = 0; i < FILES; i += 1) {
      const accepted = await upload(api.url, key, company.id, { name: `FE${i}.xml`, bytes: demoInvoiceXml(`FE${i}`, cufeOf(i), '800197268', '900108281') });
      fileIds.push(accepted.body.id);
    }
    const done = async () => Number((await api.database.db('uploaded_files').whereIn('id', fileIds).where({ status: 'DONE' }).count<{ count: string }[]>({ count: '*' }))[0].count);
    const deadline = Date.now() + 60_000;
    while ((await done()) < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    worker.kill('SIGKILL');
    await new Promise((resolve) => worker.once('exit', resolve));
    t.true((await done()) < FILES, 'killed before the burst finished');

    worker = spawnWorkerProcess(api);
    for (const id of fileIds) {
      const file = await waitForImport(api.url, key, company.id, id, 150_000);
      t.is(file.status, 'DONE', JSON.stringify(file));
      t.is(file.documents.length, 1, "every file lists its document, created or found stored");
    }
    const documents = await api.database.db('documents').where({ company_id: company.id }).select('cufe');
    t.is(documents.length, FILES, 'one document per CUFE');
    t.is(new Set(documents.map((row) => row.cufe)).size, FILES);
    t.is((await api.database.db('contacts').where({ company_id: company.id })).length, 1, 'the supplier once');
  } finally {
    worker.kill('SIGKILL');
  }
});

test.serial('an upload stored while Temporal was unreachable is imported by the reconciliation job', async (t) => {
  t.timeout(120_000);
  const company = await seedCompany(api.database, 'Sin Temporal S.A.S.', '800197268');
  const deadConnection = Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: '1 second' });
  const deadIntake = {
    repositories: api.database.repositories,
    blobStore: api.dependencies.blobStore,
    temporal: { client: new Client({ connection: deadConnection }), taskQueue: api.config.temporal.taskQueue },
  };
  const bytes = demoInvoiceXml('FE-LATE', cufeOf(999), '900108281', '800197268');
  await t.throwsAsync(acceptFile(deadIntake, { companyId: company.id, type: 'API', fileName: 'late.xml', bytes }));
  const stored = await api.database.db('uploaded_files').where({ company_id: company.id }).first();
  t.like(stored, { status: 'PENDING', file_name: 'late.xml' }, 'nothing is lost: the bytes and the record exist');
  t.deepEqual(await api.dependencies.blobStore.get(stored.blob_key), bytes);
  await deadConnection.close();

  // The job considers uploads older than two minutes; age this one instead of waiting.
  await api.database.db('uploaded_files').where({ id: stored.id }).update({ created_at: api.database.db.raw(`now() - interval '10 minutes'`) });
  const worker = spawnWorkerProcess(api);
  try {
    const resumed = await api.temporal.client.workflow.execute(resumeUnfinishedImportsWorkflow, {
      taskQueue: api.config.temporal.taskQueue,
      workflowId: `resume-${stored.id}`,
    });
    t.true(resumed >= 1);
    const { key } = await seedKey(api.database, { scopes: ['documents:read'] });
    const file = await waitForImport(api.url, key, company.id, stored.id, 60_000);
    t.is(file.status, 'DONE', JSON.stringify(file));
    t.is(file.documents[0].kind, 'electronic_invoice');
  } finally {
    worker.kill('SIGKILL');
  }
});
