import path from 'node:path';
import test from 'ava';
import { parseUbl } from '../../domain/ubl/parse';
import { startDianSimulator, type DianSimulator } from '../../integrations/dian/simulator/server';
import { workflowIdsFor } from '../../workflows/messages';
import { bearer, seedCompany, seedKey } from '../support/api';
import { generateTestPkcs12 } from '../../testing/dian-certificates';
import { eventually } from '../support/eventually';
import { FIXTURES, fixture } from '../support/ingestion';
import { whilePostgresRefusesUpdates } from '../support/postgres-disk-full';
import { startReceiver } from '../support/receiver';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// Runs whose DIAN-facing activities keep failing, under the time-skipping server (the retries'
// 5 s → 5 min backoff skipped through): DIAN failing through the 8 attempts its transient
// failures get ends the listing (the run ERROR) or leaves a batch's documents skipped; our own
// Postgres failing for longer is waited out.
let simulator: DianSimulator;
let world: WebhookWorld;
const BUYER_FIXTURES = ['invoice-signed-setp.xml', 'creditnote-usd.xml', 'toolbox-excluded-vat.xml'];

test.before(async () => {
  simulator = await startDianSimulator({ seedFiles: BUYER_FIXTURES.map((name) => path.join(FIXTURES, name)) });
  world = await startWebhookWorld({ DIAN_SIMULATOR_URL: simulator.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
});
test.after.always(async () => {
  await world?.close();
  await simulator?.close();
});

/** The fixtures' buyer (NIT 900108281, unique) with simulator settings, made once. */
let buyer: Promise<{ company: { id: number }; key: string; json: Record<string, string> }> | undefined;
function theBuyer() {
  buyer ??= (async () => {
    const company = await seedCompany(world.database, 'Opticas GMO Colombia S.A.S.', '900108281');
    const { key } = await seedKey(world.database, { scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin' });
    const json = { ...bearer(key), 'Content-Type': 'application/json' };
    const certificate = generateTestPkcs12('clave-p12', { commonName: 'Opticas GMO firma' });
    const settings = await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-settings`, {
      method: 'PUT', headers: json,
      body: JSON.stringify({ environment: 'simulator', software_id: 'sw-1', software_pin: '12345', certificate_p12_base64: certificate.p12.toString('base64'), certificate_password: certificate.password }),
    });
    if (settings.status !== 200) throw new Error(`dian-settings: ${settings.status}`);
    return { company, key, json };
  })();
  return buyer;
}

const cufeOf = (name: string) => parseUbl(fixture(name)).document.cufe;

/** A run of an uploaded export listing `cufes` (its listing asks DIAN nothing), awaited; its id, outcome and record. */
async function runOfExport(cufes: string[]) {
  const { company, key } = await theBuyer();
  const form = new FormData();
  form.append('begin_date', '2019-01-01');
  form.append('end_date', '2024-12-31');
  form.append('document_type', 'all');
  form.append('file', new Blob([['CUFE/CUDE', ...cufes].join('\n')], { type: 'text/csv' }), 'documentos-recibidos.csv');
  const posted = await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-imports`, { method: 'POST', headers: bearer(key), body: form });
  if (posted.status !== 202) throw new Error(`dian-imports: ${posted.status} ${await posted.text()}`);
  const { id } = (await posted.json()) as { id: number };
  // Awaited through the client, so the server skips the retries' backoff in virtual time.
  const result = await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianImport(id)).result();
  const run = (await (await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-imports/${id}`, { headers: bearer(key) })).json()) as Record<string, unknown>;
  return { id, result, run };
}

// Postgres refusing to record one document's import (disk_full) for longer than the batch's 8
// attempts: a dependency fault, which does not use them up. Until 2026-11-26 the 8th attempt
// ended the batch and its documents not yet imported were skipped, although nothing was wrong
// with DIAN or the documents.
test.serial('Postgres unable to record a document\'s import through 10 attempts of its batch: waited out past the 8, every document imported, none skipped', async (t) => {
  const cufes = ['invoice-signed-setp.xml', 'creditnote-usd.xml'].map(cufeOf);
  // Each attempt marks the file PROCESSING before importing it.
  const condition = `NEW.file_name = '${cufes[0]}.xml' AND NEW.status = 'PROCESSING'`;
  await whilePostgresRefusesUpdates(world.database.db, { table: 'uploaded_files', condition, tries: 10 }, async (tried) => {
    const started = await world.env.currentTimeMs();
    const { id, result, run } = await runOfExport(cufes);
    t.deepEqual(result, { status: 'DONE' });
    const seconds = ((await world.env.currentTimeMs()) - started) / 1000;
    t.true(seconds >= 5 + 10 + 20 + 40 + 80 + 160 + 300 * 4, `waited out past the 8 attempts' 15 minutes (${seconds} virtual s)`);
    t.is(await tried(), 11, '10 attempts refused, the 11th recorded');
    t.like(run, { status: 'DONE', found_count: 2, electronic_invoices_count: 1, credit_notes_count: 1, skipped_count: 0 });
    const files = await world.database.db('uploaded_files').where({ dian_importation_id: id }).orderBy('file_name');
    t.deepEqual(files.map((file: { file_name: string; status: string }) => [file.file_name, file.status]), cufes.map((cufe) => [`${cufe}.xml`, 'DONE']).sort());
  });
});

test.serial('DIAN failing every attempt of a batch (8 HTTP 500s): its document is skipped after the 8 attempts, the run DONE', async (t) => {
  const cufe = cufeOf('toolbox-excluded-vat.xml');
  const before = simulator.requests.length;
  simulator.failNext(8, 'http500');
  const started = await world.env.currentTimeMs();
  const { id, result, run } = await runOfExport([cufe]);
  t.deepEqual(result, { status: 'DONE' });
  const seconds = ((await world.env.currentTimeMs()) - started) / 1000;
  t.true(seconds >= 5 + 10 + 20 + 40 + 80 + 160 + 300, `retried with backoff (${seconds} virtual s)`);
  t.deepEqual(simulator.requests.slice(before).map((request) => request.outcome), Array(8).fill('injected http500'), 'asked at each of the 8 attempts, nothing more');
  t.like(run, { status: 'DONE', found_count: 1, electronic_invoices_count: 0, credit_notes_count: 0, skipped_count: 1 });
  t.deepEqual(await world.database.db('uploaded_files').where({ dian_importation_id: id }), []);
});

test.serial('Postgres unable to mark the run listing through 10 attempts: waited out past the 8, the run listed and imported, DONE', async (t) => {
  const { company, key, json } = await theBuyer();
  // The listing's first write: the run PENDING → PROCESSING.
  await whilePostgresRefusesUpdates(world.database.db, { table: 'dian_imports', condition: `OLD.status = 'PENDING' AND NEW.status = 'PROCESSING'`, tries: 10 }, async (tried) => {
    const started = await world.env.currentTimeMs();
    const posted = await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-imports`, { method: 'POST', headers: json, body: JSON.stringify({ begin_date: '2019-01-01', end_date: '2024-12-31', document_type: 'all' }) });
    t.is(posted.status, 202);
    const { id } = (await posted.json()) as { id: number };
    t.deepEqual(await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianImport(id)).result(), { status: 'DONE' });
    const seconds = ((await world.env.currentTimeMs()) - started) / 1000;
    t.true(seconds >= 5 + 10 + 20 + 40 + 80 + 160 + 300 * 4, `waited out past the 8 attempts' 15 minutes (${seconds} virtual s)`);
    t.is(await tried(), 11, '10 attempts refused, the 11th recorded');
    // The listing's three documents: two imported by the first test, the third skipped by the second one's 8 HTTP 500s.
    const run = (await (await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-imports/${id}`, { headers: bearer(key) })).json()) as Record<string, unknown>;
    t.like(run, { status: 'DONE', found_count: 3, electronic_invoices_count: 1, credit_notes_count: 0, skipped_count: 2 });
  });
});

test.serial('listing that keeps failing: status ERROR and exactly one dian_import.failed carrying the run\'s record', async (t) => {
  const { company, key, json } = await theBuyer();
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const endpoint = await fetch(`${world.apiUrl}/v1/companies/${company.id}/webhooks`, { method: 'POST', headers: json, body: JSON.stringify({ url: receiver.url, events: [] }) });
  t.is(endpoint.status, 201);
  t.truthy(((await endpoint.json()) as { secret?: string }).secret);

  const before = simulator.requests.length;
  simulator.failNext(1_000, 'http500');
  const posted = await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-imports`, { method: 'POST', headers: json, body: JSON.stringify({ begin_date: '2019-01-01', end_date: '2019-12-31' }) });
  t.is(posted.status, 202);
  const accepted = (await posted.json()) as { id: number };
  const result = await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianImport(accepted.id)).result();
  t.deepEqual(result, { status: 'ERROR' });
  const requests = simulator.requests.slice(before);
  t.is(requests.filter((request) => request.outcome === 'injected http500').length, 8, 'the listing was tried 8 times');
  t.is(requests.filter((request) => request.operation === 'GetXmlByDocumentKey').length, 0);

  const run = (await (await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-imports/${accepted.id}`, { headers: bearer(key) })).json()) as Record<string, unknown>;
  t.like(run, { id: accepted.id, status: 'ERROR', source: 'dian_web_service', found_count: 0 });

  const published = await eventually(async () => {
    const rows = await world.database.db('events').where({ company_id: company.id }).where('type', 'like', 'dian_import.%').whereRaw(`data->>'id' = ?`, [String(accepted.id)]);
    return rows.length > 0 ? rows : undefined;
  });
  t.is(published.length, 1);
  t.is(published[0].type, 'dian_import.failed');
  t.deepEqual(published[0].data, run);

  // Delivered to the endpoint as a signed webhook whose data is exactly the spec's record. (The
  // body is read without Webhook.verify: its timestamp is the time-skipping server's clock.)
  const webhooks = await eventually(() => {
    const bodies = receiver.received
      .filter((request) => typeof request.headers['webhook-signature'] === 'string')
      .map((request) => JSON.parse(request.body) as { type: string; data: Record<string, unknown> })
      .filter((event) => event.type.startsWith('dian_import.') && event.data.id === accepted.id);
    return bodies.length > 0 ? bodies : undefined;
  });
  t.is(webhooks.length, 1);
  t.is(webhooks[0]!.type, 'dian_import.failed');
  t.deepEqual(webhooks[0]!.data, run);
  t.deepEqual(Object.keys(webhooks[0]!.data).sort(), ['begin_date', 'credit_notes_count', 'document_type', 'electronic_invoices_count', 'end_date', 'found_count', 'id', 'skipped_count', 'source', 'status'].sort());
});
