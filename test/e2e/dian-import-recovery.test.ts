import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { startDianSimulator, type DianSimulator } from '../../integrations/dian/simulator/server';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi, spawnWorkerProcess } from '../support/api';
import { generateTestPkcs12 } from '../../testing/dian-certificates';
import { eventually } from '../support/eventually';

// A DIAN import run survives its worker being SIGKILLed mid-run: the restarted worker finishes
// it (DONE, found 30) with every CUFE stored once and no second file for any CUFE, and a re-run
// of the range creates nothing.
const DOCUMENTS = 30;
const COMPANY_NIT = '900108281';
const SUPPLIER_NIT = '800197268';
let simulator: DianSimulator;
let api: TestApi;

const cufeOf = (n: number) => createHash('sha384').update(`dian-import-recovery-${n}`).digest('hex');

test.before(async () => {
  simulator = await startDianSimulator();
  for (let i = 0; i < DOCUMENTS; i += 1) {
    simulator.addDocument(cufeOf(i), demoInvoiceXml(`FE-DIAN-${i}`, cufeOf(i), SUPPLIER_NIT, COMPANY_NIT), {
      receiverNit: COMPANY_NIT, senderNit: SUPPLIER_NIT, issueDate: '2026-11-02', documentType: '01',
    });
  }
  api = await startTestApi({ DIAN_SIMULATOR_URL: simulator.url });
});
test.after.always(async () => {
  await api?.close();
  await simulator?.close();
});


async function kill(worker: ChildProcess): Promise<void> {
  if (worker.exitCode !== null || worker.signalCode !== null) return;
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  worker.kill('SIGKILL');
  await exited;
}

test.serial('a worker SIGKILLed mid-run: the run resumes, ends DONE, and no CUFE is stored or uploaded twice', async (t) => {
  t.timeout(300_000);
  const company = await seedCompany(api.database, 'Importación DIAN S.A.S.', COMPANY_NIT);
  const { key } = await seedKey(api.database, { scopes: ['documents:read', 'documents:write'], role: 'admin' });
  const call = async (method: string, url: string, body?: unknown) => {
    const response = await fetch(`${api.url}${url}`, {
      method,
      headers: { ...bearer(key), ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  const certificate = generateTestPkcs12('clave-p12', { commonName: 'Importación DIAN firma' });
  const settings = await call('PUT', `/v1/companies/${company.id}/dian-settings`, {
    environment: 'simulator', software_id: 'c7f0b5a4-1111-4a0e-9d8b-000000000002', software_pin: '12345',
    certificate_p12_base64: certificate.p12.toString('base64'), certificate_password: certificate.password,
  });
  t.is(settings.status, 200, JSON.stringify(settings.body));
  const runsPath = `/v1/companies/${company.id}/dian-imports`;
  const waitForRun = (id: number, timeoutMs: number) =>
    eventually(async () => {
      const run = await call('GET', `${runsPath}/${id}`);
      return run.body.status === 'DONE' || run.body.status === 'ERROR' ? run.body : undefined;
    }, timeoutMs);
  const documentCount = async () =>
    Number((await api.database.db('documents').where({ company_id: company.id }).count<{ count: string }[]>({ count: '*' }))[0]!.count);

  let worker = spawnWorkerProcess(api, { DIAN_SIMULATOR_URL: simulator.url });
  try {
    const accepted = await call('POST', runsPath, { begin_date: '2026-11-01', end_date: '2026-11-30', document_type: 'invoice' });
    t.is(accepted.status, 202, JSON.stringify(accepted.body));
    const importId = accepted.body.id as number;

    const deadline = Date.now() + 120_000;
    while ((await documentCount()) < 3 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    await kill(worker);
    const atKill = await documentCount();
    t.true(atKill >= 3, `documents when killed: ${atKill}`);
    t.true(atKill < DOCUMENTS, `killed before the run finished (${atKill} documents)`);
    t.not((await call('GET', `${runsPath}/${importId}`)).body.status, 'DONE');

    worker = spawnWorkerProcess(api, { DIAN_SIMULATOR_URL: simulator.url });
    const done = await waitForRun(importId, 240_000);
    t.like(done, { id: importId, status: 'DONE', found_count: DOCUMENTS, electronic_invoices_count: DOCUMENTS, credit_notes_count: 0, skipped_count: 0 });

    const documents = await api.database.db('documents').where({ company_id: company.id }).select('cufe');
    t.is(documents.length, DOCUMENTS, 'one document per CUFE');
    t.deepEqual(documents.map((row) => row.cufe).sort(), Array.from({ length: DOCUMENTS }, (_, i) => cufeOf(i)).sort());

    const files = await api.database.db('uploaded_files').where({ dian_importation_id: importId }).select('id', 'file_name', 'type', 'status');
    t.is(files.length, DOCUMENTS, 'one uploaded file per CUFE');
    t.is(new Set(files.map((file) => file.file_name)).size, DOCUMENTS, 'no second file for a CUFE');
    t.true(files.every((file) => file.type === 'DIAN' && file.status === 'DONE'), JSON.stringify(files.filter((file) => file.status !== 'DONE')));

    // The same range again: everything is already present, nothing is fetched or created.
    const fetchesBefore = simulator.requests.filter((request) => request.operation === 'GetXmlByDocumentKey').length;
    const again = await call('POST', runsPath, { begin_date: '2026-11-01', end_date: '2026-11-30', document_type: 'invoice' });
    t.is(again.status, 202);
    const rerun = await waitForRun(again.body.id, 120_000);
    t.like(rerun, { status: 'DONE', found_count: DOCUMENTS, electronic_invoices_count: 0, credit_notes_count: 0, skipped_count: DOCUMENTS });
    t.is(await documentCount(), DOCUMENTS);
    t.is((await api.database.db('uploaded_files').where({ dian_importation_id: again.body.id })).length, 0);
    t.is(simulator.requests.filter((request) => request.operation === 'GetXmlByDocumentKey').length, fetchesBefore);
  } finally {
    await kill(worker);
  }
});
