import path from 'node:path';
import test from 'ava';
import { verifyXadesSignature } from '../../domain/dian/xades';
import { startDianSimulator, type DianSimulator } from '../../integrations/dian/simulator/server';
import { workflowIdsFor } from '../../workflows/messages';
import { bearer, seedCompany, seedKey } from '../support/api';
import { generateTestPkcs12 } from '../../testing/dian-certificates';
import { FIXTURES, fixture, upload, waitForImport } from '../support/ingestion';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';
import { eventually } from '../support/eventually';

// Transient DIAN failures are retried inside dianEventWorkflow (5 s → 5 min backoff, skipped
// through by the time-skipping server) and produce no intermediate events.
let simulator: DianSimulator;
let world: WebhookWorld;

test.before(async () => {
  simulator = await startDianSimulator({ verifyApplicationResponse: verifyXadesSignature, seedFiles: [path.join(FIXTURES, 'invoice-signed-setp.xml')] });
  world = await startWebhookWorld({ DIAN_SIMULATOR_URL: simulator.url });
});
test.after.always(async () => {
  await world?.close();
  await simulator?.close();
});

test('three HTTP 500s from DIAN, then success: exactly one dian_event.completed and no other dian_event event', async (t) => {
  const company = await seedCompany(world.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  const { key } = await seedKey(world.database, { scopes: ['documents:read', 'documents:write'], role: 'admin' });
  const certificate = generateTestPkcs12('clave-p12', { commonName: 'Opticas GMO firma' });
  const json = { ...bearer(key), 'Content-Type': 'application/json' };
  const settings = await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-settings`, {
    method: 'PUT', headers: json,
    body: JSON.stringify({ environment: 'simulator', software_id: 'sw-1', software_pin: '12345', certificate_p12_base64: certificate.p12.toString('base64'), certificate_password: certificate.password }),
  });
  t.is(settings.status, 200);
  const accepted = await upload(world.apiUrl, key, company.id, { name: 'invoice.xml', bytes: fixture('invoice-signed-setp.xml') });
  const file = await waitForImport(world.apiUrl, key, company.id, accepted.body.id);
  const invoiceId = file.documents[0].id as number;

  simulator.failNext(3, 'http500');
  const posted = await fetch(`${world.apiUrl}/v1/companies/${company.id}/invoices/${invoiceId}/dian-events`, { method: 'POST', headers: json, body: JSON.stringify({ event: '030', issuer: { id_type: '13', id_number: '1020304050', first_name: 'Ana', family_name: 'Pérez', job_title: 'Contadora' } }) });
  t.is(posted.status, 202);
  const event = (await posted.json()) as { id: number };
  const result = await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianEvent(event.id)).result();
  t.deepEqual(result, { succeeded: true });

  const sends = simulator.requests.filter((request) => request.operation === 'SendEventUpdateStatus' || request.outcome === 'injected http500');
  t.deepEqual(sends.map((request) => request.outcome), ['injected http500', 'injected http500', 'injected http500', 'StatusCode 00']);
  // publishEvents starts publishEventWorkflow, which records the event: wait for it.
  const dianEvents = () => world.database.db('events').where({ company_id: company.id }).where('type', 'like', 'dian_event.%');
  const published = await eventually(async () => {
    const rows = await dianEvents();
    return rows.length > 0 ? rows : undefined;
  });
  t.is(published.length, 1);
  t.is(published[0].type, 'dian_event.completed');
  t.deepEqual(published[0].data, { invoice_id: invoiceId, cufe: file.documents[0].cufe, event: '030', succeeded: true });
});
