import path from 'node:path';
import test from 'ava';
import { startDianSimulator, type DianSimulator } from '../../integrations/dian/simulator/server';
import { workflowIdsFor } from '../../workflows/messages';
import { bearer, seedCompany, seedKey } from '../support/api';
import { generateTestPkcs12 } from '../../testing/dian-certificates';
import { eventually } from '../support/eventually';
import { FIXTURES } from '../support/ingestion';
import { startReceiver } from '../support/receiver';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';

// A run whose listing fails permanently: DIAN (the simulator) answers HTTP 500 to every
// request, the listing activity's retries (5 s → 5 min, 8 attempts, skipped through by the
// time-skipping server) are exhausted, the run ends ERROR with one dian_import.failed.
let simulator: DianSimulator;
let world: WebhookWorld;

test.before(async () => {
  simulator = await startDianSimulator({ seedFiles: [path.join(FIXTURES, 'invoice-signed-setp.xml')] });
  world = await startWebhookWorld({ DIAN_SIMULATOR_URL: simulator.url, WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true' });
});
test.after.always(async () => {
  await world?.close();
  await simulator?.close();
});

test('listing that keeps failing: status ERROR and exactly one dian_import.failed carrying the run\'s record', async (t) => {
  const company = await seedCompany(world.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  const { key } = await seedKey(world.database, { scopes: ['documents:read', 'documents:write', 'webhooks:manage'], role: 'admin' });
  const json = { ...bearer(key), 'Content-Type': 'application/json' };
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const endpoint = await fetch(`${world.apiUrl}/v1/companies/${company.id}/webhooks`, { method: 'POST', headers: json, body: JSON.stringify({ url: receiver.url, events: [] }) });
  t.is(endpoint.status, 201);
  t.truthy(((await endpoint.json()) as { secret?: string }).secret);
  const certificate = generateTestPkcs12('clave-p12', { commonName: 'Opticas GMO firma' });
  const settings = await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-settings`, {
    method: 'PUT', headers: json,
    body: JSON.stringify({ environment: 'simulator', software_id: 'sw-1', software_pin: '12345', certificate_p12_base64: certificate.p12.toString('base64'), certificate_password: certificate.password }),
  });
  t.is(settings.status, 200);

  simulator.failNext(1_000, 'http500');
  const posted = await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-imports`, { method: 'POST', headers: json, body: JSON.stringify({ begin_date: '2019-01-01', end_date: '2019-12-31' }) });
  t.is(posted.status, 202);
  const accepted = (await posted.json()) as { id: number };
  const result = await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianImport(accepted.id)).result();
  t.deepEqual(result, { status: 'ERROR' });
  t.is(simulator.requests.filter((request) => request.outcome === 'injected http500').length, 8, 'the listing was tried 8 times');
  t.is(simulator.requests.filter((request) => request.operation === 'GetXmlByDocumentKey').length, 0);

  const run = (await (await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-imports/${accepted.id}`, { headers: bearer(key) })).json()) as Record<string, unknown>;
  t.like(run, { id: accepted.id, status: 'ERROR', source: 'dian_web_service', found_count: 0 });

  const published = await eventually(async () => {
    const rows = await world.database.db('events').where({ company_id: company.id }).where('type', 'like', 'dian_import.%');
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
      .filter((event) => event.type.startsWith('dian_import.'));
    return bodies.length > 0 ? bodies : undefined;
  });
  t.is(webhooks.length, 1);
  t.is(webhooks[0]!.type, 'dian_import.failed');
  t.deepEqual(webhooks[0]!.data, run);
  t.deepEqual(Object.keys(webhooks[0]!.data).sort(), ['begin_date', 'credit_notes_count', 'document_type', 'electronic_invoices_count', 'end_date', 'found_count', 'id', 'skipped_count', 'source', 'status'].sort());
});
