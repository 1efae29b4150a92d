import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { demoElectronicInvoice } from '../../admin/demo-documents';
import { demoUnseenInvoices } from '../../admin/demo-dian';
import { verifyXadesSignature } from '../../domain/dian/xades';
import { startDianSimulator, type DianSimulator } from '../../integrations/dian/simulator/server';
import { DEMO_COMPANY, demoHints, seedDemoOnFirstRun, type DemoSeed } from '../../scripts/demo-seed';
import { startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { upload, waitForImport } from '../support/ingestion';
import { startTestWorker, type TestWorker } from '../support/worker';

// The embedded default shows the whole DIAN flow: seeded like `npm start` does (the simulator
// with a state file, the demo company in environment simulator), the first-run hint's
// 030 → 032 → 033 complete and its range import finds the documents only DIAN had.
let stateDir: string;
let simulator: DianSimulator;
let api: TestApi;
let worker: TestWorker;
let demo: DemoSeed;
const ISSUER = { id_type: '13', id_number: '1020304050', first_name: 'Ana', family_name: 'Pérez', job_title: 'Contadora' };

const startSimulator = () =>
  startDianSimulator({ verifyApplicationResponse: verifyXadesSignature, stateFile: path.join(stateDir, 'dian-simulator.json') });

test.before(async () => {
  stateDir = mkdtempSync(path.join(os.tmpdir(), 'dian-demo-'));
  simulator = await startSimulator();
  api = await startTestApi({ DIAN_SIMULATOR_URL: simulator.url });
  worker = await startTestWorker(api.database, api.config);
  const seeded = await seedDemoOnFirstRun(api.database.repositories, api.dependencies.blobStore, api.config, {
    secretBox: api.dependencies.secretBox,
    simulatorUrl: simulator.url,
  });
  if (!seeded) throw new Error('the demo was not seeded on an empty database');
  demo = seeded;
});
test.after.always(async () => {
  await worker?.stop();
  await api?.close();
  await simulator?.close();
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
});

async function call(method: string, url: string, body?: unknown) {
  const response = await fetch(`${api.url}${url}`, {
    method,
    headers: { Authorization: `Bearer ${demo.api_key.key}`, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const company = () => `/v1/companies/${demo.company.id}`;

async function emitAndWait(invoiceId: number, event: string) {
  const posted = await call('POST', `${company()}/invoices/${invoiceId}/dian-events`, { event, ...(event === '033' ? {} : { issuer: ISSUER }) });
  if (posted.status !== 202) throw new Error(JSON.stringify(posted));
  return eventually(async () => {
    const list = await call('GET', `${company()}/invoices/${invoiceId}/dian-events`);
    const row = list.body.data.find((item: { id: number }) => item.id === posted.body.id);
    return row && row.status !== 'pending' ? row : undefined;
  });
}

test.serial('the demo company has simulator settings, and the simulator knows its invoices and three more', async (t) => {
  const settings = await call('GET', `${company()}/dian-settings`);
  t.is(settings.status, 200);
  t.like(settings.body, { environment: 'simulator', event_number_prefix: 'DIS' });
  t.regex(settings.body.certificate.subject, /Demo Compras/);
  const known = simulator.catalog.listReceived({ companyNit: DEMO_COMPANY.nit, from: '2026-11-01', to: '2026-11-30', documentType: '' });
  t.is(known.length, 5);
  const hints = demoHints(api.url, demo).join('\n');
  t.true(hints.includes(`/invoices/${demo.dian_demo_invoice_id}/dian-events`));
  t.true(hints.includes(demo.api_key.key));
});

test.serial('the hint\'s 030 → 032 → 033 on FEDEMO1 all complete', async (t) => {
  for (const code of ['030', '032', '033']) {
    const row = await emitAndWait(demo.dian_demo_invoice_id, code);
    t.like(row, { event: code, status: 'succeeded', succeeded: true }, JSON.stringify(row));
  }
  const invoice = await call('GET', `${company()}/invoices/${demo.dian_demo_invoice_id}`);
  t.deepEqual(simulator.events(invoice.body.cufe).map((event) => event.code), ['030', '032', '033']);
  // Seeded like an import: the tax breakdown and environment of its XML, not nulls.
  t.like(invoice.body, { vat: '190000.00', tax_total: '190000.00', dian_environment: 'testing' });
});

test.serial('the hint\'s range import finds the three invoices only DIAN had and skips the two the company has', async (t) => {
  const started = await call('POST', `${company()}/dian-imports`, { begin_date: '2026-11-01', end_date: '2026-11-30' });
  t.is(started.status, 202, JSON.stringify(started.body));
  const done = await eventually(async () => {
    const run = await call('GET', `${company()}/dian-imports/${started.body.id}`);
    return run.body.status === 'DONE' || run.body.status === 'ERROR' ? run.body : undefined;
  });
  t.like(done, { status: 'DONE', found_count: 5, electronic_invoices_count: 3, skipped_count: 2 });
  const numbers = (await call('GET', `${company()}/invoices?limit=50`)).body.data.map((invoice: { number: string }) => invoice.number);
  for (const unseen of demoUnseenInvoices(DEMO_COMPANY.nit)) t.true(numbers.includes(unseen.number), unseen.number);
});

test.serial('an invoice uploaded for a simulator-mode company is registered with the simulator, so its events succeed', async (t) => {
  const invoice = demoElectronicInvoice('NEW-77', '860002964', DEMO_COMPANY.nit, { issueDate: '2026-11-20', supplierName: 'Papelería La Esquina S.A.S.' });
  t.false(simulator.catalog.documents.has(invoice.cufe));
  const accepted = await upload(api.url, demo.api_key.key, demo.company.id, { name: 'NEW-77.xml', bytes: invoice.xml });
  const file = await waitForImport(api.url, demo.api_key.key, demo.company.id, accepted.body.id);
  t.is(file.status, 'DONE');
  await eventually(() => simulator.catalog.documents.get(invoice.cufe));
  t.like(simulator.catalog.documents.get(invoice.cufe), { receiverNit: DEMO_COMPANY.nit, senderNit: '860002964', issueDate: '2026-11-20', documentType: '01' });
  const row = await emitAndWait(file.documents[0].id, '030');
  t.like(row, { status: 'succeeded' });
});

test.serial('the simulator keeps its catalogue across restarts (state file under DATA_DIR)', async (t) => {
  const invoice = await call('GET', `${company()}/invoices/${demo.dian_demo_invoice_id}`);
  const before = simulator.events(invoice.body.cufe);
  await simulator.close();
  simulator = await startSimulator();
  t.deepEqual(simulator.events(invoice.body.cufe), before);
  t.is(simulator.catalog.listReceived({ companyNit: DEMO_COMPANY.nit, from: '2026-11-01', to: '2026-11-30', documentType: '' }).length, 6);
});
