import { createHash } from 'node:crypto';
import path from 'node:path';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { verifyXadesSignature } from '../../domain/dian/xades';
import { startDianSimulator, type DianSimulator } from '../../integrations/dian/simulator/server';
import { workflowIdsFor } from '../../workflows/messages';
import { bearer, seedCompany, seedKey } from '../support/api';
import { generateTestPkcs12 } from '../../testing/dian-certificates';
import { FIXTURES, fixture, upload, waitForImport } from '../support/ingestion';
import { startWebhookWorld, type WebhookWorld } from '../support/webhook-world';
import { eventually } from '../support/eventually';
import { whilePostgresRefusesUpdates } from '../support/postgres-disk-full';

// Transient DIAN failures are retried inside dianEventWorkflow (5 s → 5 min backoff, skipped
// through by the time-skipping server) and produce no intermediate events.
let simulator: DianSimulator;
let world: WebhookWorld;
const ISSUER = { id_type: '13', id_number: '1020304050', first_name: 'Ana', family_name: 'Pérez', job_title: 'Contadora' };

test.before(async () => {
  simulator = await startDianSimulator({
    verifyApplicationResponse: verifyXadesSignature,
    seedFiles: ['invoice-signed-setp.xml', 'toolbox-excluded-vat.xml'].map((name) => path.join(FIXTURES, name)),
  });
  world = await startWebhookWorld({ DIAN_SIMULATOR_URL: simulator.url });
});
test.after.always(async () => {
  await world?.close();
  await simulator?.close();
});

/** The fixtures' buyer (NIT 900108281, unique) with simulator settings, made once. */
let buyer: Promise<{ company: { id: number }; key: string }> | undefined;
function theBuyer() {
  buyer ??= (async () => {
    const company = await seedCompany(world.database, 'Opticas GMO Colombia S.A.S.', '900108281');
    const { key } = await seedKey(world.database, { scopes: ['documents:read', 'documents:write'], role: 'admin' });
    const certificate = generateTestPkcs12('clave-p12', { commonName: 'Opticas GMO firma' });
    const settings = await fetch(`${world.apiUrl}/v1/companies/${company.id}/dian-settings`, {
      method: 'PUT', headers: { ...bearer(key), 'Content-Type': 'application/json' },
      body: JSON.stringify({
        environment: 'simulator', software_id: 'sw-1', software_pin: '12345', event_number_prefix: 'RETRY',
        certificate_p12_base64: certificate.p12.toString('base64'), certificate_password: certificate.password,
      }),
    });
    if (settings.status !== 200) throw new Error(`dian-settings: ${settings.status}`);
    return { company, key };
  })();
  return buyer;
}

/** One imported invoice of the buyer, and a 030 POSTed for it and awaited. */
async function postEvent(t: { is: (a: unknown, b: unknown) => void }, fixtureName: string, beforePost: () => void) {
  const { company, key } = await theBuyer();
  const json = { ...bearer(key), 'Content-Type': 'application/json' };
  const accepted = await upload(world.apiUrl, key, company.id, { name: 'invoice.xml', bytes: fixture(fixtureName) });
  const file = await waitForImport(world.apiUrl, key, company.id, accepted.body.id);
  const invoice = file.documents[0] as { id: number; cufe: string };
  // The import ends by reading DIAN's events for the invoice (GetStatusEvent): let it finish
  // before injecting failures meant for the event.
  await eventually(async () => (await world.database.db('documents').where({ id: invoice.id }).first())?.dian_events_synced_at ?? undefined);
  beforePost();
  const posted = await fetch(`${world.apiUrl}/v1/companies/${company.id}/invoices/${invoice.id}/dian-events`, { method: 'POST', headers: json, body: JSON.stringify({ event: '030', issuer: ISSUER }) });
  t.is(posted.status, 202);
  const event = (await posted.json()) as { id: number };
  const result = await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianEvent(event.id)).result();
  // The workflow's publishEvents activity records the event: wait for it.
  const published = await eventually(async () => {
    const rows = await world.database.db('events').where({ company_id: company.id }).where('type', 'like', 'dian_event.%')
      .whereRaw(`data->>'invoice_id' = ?`, [String(invoice.id)]);
    return rows.length > 0 ? rows : undefined;
  });
  return { company, invoice, event, result, published };
}

test.serial('three HTTP 500s from DIAN, then success: exactly one dian_event.completed and no other dian_event event', async (t) => {
  const { invoice, result, published } = await postEvent(t, 'invoice-signed-setp.xml', () => simulator.failNext(3, 'http500'));
  t.deepEqual(result, { succeeded: true });
  const sends = simulator.requests.filter((request) => request.operation === 'SendEventUpdateStatus' || request.outcome === 'injected http500');
  t.deepEqual(sends.map((request) => request.outcome), ['injected http500', 'injected http500', 'injected http500', 'StatusCode 00']);
  t.is(published.length, 1);
  t.is(published[0].type, 'dian_event.completed');
  t.deepEqual(published[0].data, { invoice_id: invoice.id, cufe: invoice.cufe, event: '030', succeeded: true });
});

test.serial('an answer lost after DIAN registered the event: the retry gets Regla 90 with OUR key and the event succeeds', async (t) => {
  let before = 0;
  const { invoice, event, result, published } = await postEvent(t, 'toolbox-excluded-vat.xml', () => {
    before = simulator.requests.length;
    simulator.failNext(1, 'lostAnswer');
  });
  t.deepEqual(result, { succeeded: true });
  const sends = simulator.requests.slice(before).filter((request) => request.operation === 'SendEventUpdateStatus');
  t.deepEqual(sends.map((request) => request.outcome), ['answer lost after StatusCode 00', 'StatusCode 99']);
  const row = await world.database.db('dian_events').where({ id: event.id }).first();
  t.like(row, { status: 'succeeded' });
  t.regex(row.number, /^RETRY[0-9]+$/);
  t.deepEqual(simulator.events(invoice.cufe).map((registered) => registered.cude), [row.cude]);
  t.deepEqual(published.map((p: { type: string }) => p.type), ['dian_event.completed']);
});

test.serial('the simulator refusing an imported invoice 11 times (a 7-minute outage): the import keeps registering it, and its 030 then succeeds', async (t) => {
  const { company, key } = await theBuyer();
  const before = simulator.requests.length;
  simulator.refuseNextRegistrations(11);
  const cufe = createHash('sha384').update('registration-outage').digest('hex');
  const accepted = await upload(world.apiUrl, key, company.id, { name: 'FE-OUTAGE-1.xml', bytes: demoInvoiceXml('FE-OUTAGE-1', cufe, '800197268', '900108281') });
  t.is(accepted.status, 202);
  // Awaited through the client, so the server skips the retries' backoff in virtual time.
  const started = await world.env.currentTimeMs();
  t.deepEqual(await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).importFile(accepted.body.id)).result(), { status: 'DONE' });
  t.true((await world.env.currentTimeMs()) - started >= 7 * 60_000, 'the registration outlasted 7 minutes');
  const registrations = simulator.requests.slice(before).filter((request) => request.operation === 'admin /simulator/documents');
  t.deepEqual(registrations.map((request) => request.status), [...Array(11).fill(503), 201]);

  const invoice = (await waitForImport(world.apiUrl, key, company.id, accepted.body.id)).documents[0] as { id: number };
  const posted = await fetch(`${world.apiUrl}/v1/companies/${company.id}/invoices/${invoice.id}/dian-events`, {
    method: 'POST', headers: { ...bearer(key), 'Content-Type': 'application/json' }, body: JSON.stringify({ event: '030', issuer: ISSUER }),
  });
  t.is(posted.status, 202);
  const event = (await posted.json()) as { id: number };
  t.deepEqual(await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianEvent(event.id)).result(), { succeeded: true });
  t.is(simulator.events(cufe).length, 1);
});

// An event whose every attempt's answer was lost ends failed (dian_unavailable) although DIAN
// registered its first attempt. Sent again, it used to go out under a new number and CUDE, which
// DIAN refuses (LGC01: one event of a kind per invoice): the event stayed failed while DIAN held it.
test.serial('an event sent again after its attempts ran out while DIAN held the first: recorded as registered from GetStatusEvent, nothing sent again', async (t) => {
  const { company, key } = await theBuyer();
  const json = { ...bearer(key), 'Content-Type': 'application/json' };
  const cufe = createHash('sha384').update('lost-answers-then-resent').digest('hex');
  const accepted = await upload(world.apiUrl, key, company.id, { name: 'FE-LOST-1.xml', bytes: demoInvoiceXml('FE-LOST-1', cufe, '800197268', '900108281') });
  t.is(accepted.status, 202);
  const invoice = (await waitForImport(world.apiUrl, key, company.id, accepted.body.id)).documents[0] as { id: number };
  await eventually(async () => (await world.database.db('documents').where({ id: invoice.id }).first())?.dian_events_synced_at ?? undefined);
  const eventsPath = `${world.apiUrl}/v1/companies/${company.id}/invoices/${invoice.id}/dian-events`;
  const send = async () => {
    const posted = await fetch(eventsPath, { method: 'POST', headers: json, body: JSON.stringify({ event: '030', issuer: ISSUER }) });
    t.is(posted.status, 202);
    const event = (await posted.json()) as { id: number; number: string };
    return { event, result: await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianEvent(event.id)).result() };
  };

  const before = simulator.requests.length;
  simulator.failNext(8, 'lostAnswer');
  const first = await send();
  t.deepEqual(first.result, { succeeded: false });
  const lost = await world.database.db('dian_events').where({ id: first.event.id }).first();
  t.like(lost, { status: 'failed', error_code: 'dian_unavailable' });
  const registered = simulator.events(cufe);
  t.is(registered.length, 1, 'DIAN registered the first attempt');

  const sendsBefore = simulator.requests.filter((request) => request.operation === 'SendEventUpdateStatus').length;
  const second = await send();
  t.deepEqual(second.result, { succeeded: true });
  t.is(simulator.requests.filter((request) => request.operation === 'SendEventUpdateStatus').length, sendsBefore, 'no event sent again');
  t.true(simulator.requests.slice(before).some((request) => request.operation === 'GetStatusEvent'));
  const adopted = await world.database.db('dian_events').where({ id: second.event.id }).first();
  t.like(adopted, { status: 'succeeded', cude: registered[0]!.cude, signed_xml_blob_key: lost.signed_xml_blob_key });
  t.deepEqual(adopted.issued_at, lost.issued_at);
  t.is(simulator.events(cufe).length, 1);
  const listed = (await (await fetch(eventsPath, { headers: bearer(key) })).json()) as { data: { id: number; number: string }[]; registered_at_dian: { event: string; cude: string }[] };
  // The API shows the number DIAN holds (the first attempt's, in the signed file both link to), not the second's own, never sent.
  t.not(second.event.number, lost.number);
  t.is(listed.data.find((event) => event.id === second.event.id)?.number, lost.number);
  t.is(listed.data.find((event) => event.id === first.event.id)?.number, lost.number);
  t.deepEqual(listed.registered_at_dian.map((event) => [event.event, event.cude]), [['030', registered[0]!.cude]]);
  const published = await eventually(async () => {
    const rows = await world.database.db('events').where({ company_id: company.id }).whereRaw(`data->>'invoice_id' = ?`, [String(invoice.id)]).where('type', 'like', 'dian_event.%').orderBy('created_at');
    return rows.length === 2 ? rows : undefined;
  });
  t.deepEqual(published.map((row: { type: string }) => row.type).sort(), ['dian_event.completed', 'dian_event.failed']);
});

type Assertions = { is: (a: unknown, b: unknown) => void; deepEqual: (a: unknown, b: unknown) => void };

/**
 * A new invoice of the buyer, imported and its DIAN events read; `send` posts a 030 for it and
 * awaits its workflow.
 */
async function invoiceOfTheBuyer(t: Assertions, number: string) {
  const { company, key } = await theBuyer();
  const json = { ...bearer(key), 'Content-Type': 'application/json' };
  const cufe = createHash('sha384').update(`refused-${number}`).digest('hex');
  const accepted = await upload(world.apiUrl, key, company.id, { name: `${number}.xml`, bytes: demoInvoiceXml(number, cufe, '800197268', '900108281') });
  const invoice = (await waitForImport(world.apiUrl, key, company.id, accepted.body.id)).documents[0] as { id: number };
  await eventually(async () => (await world.database.db('documents').where({ id: invoice.id }).first())?.dian_events_synced_at ?? undefined);
  const send = async () => {
    const posted = await fetch(`${world.apiUrl}/v1/companies/${company.id}/invoices/${invoice.id}/dian-events`, { method: 'POST', headers: json, body: JSON.stringify({ event: '030', issuer: ISSUER }) });
    t.is(posted.status, 202);
    const event = (await posted.json()) as { id: number };
    return { event, result: await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianEvent(event.id)).result() };
  };
  return { company, cufe, invoice, send };
}

/** The dian_event.* events published for an invoice, once its workflow published one. */
async function publishedFor(companyId: number, invoiceId: number) {
  await eventually(async () => ((await world.database.db('events').where({ company_id: companyId }).where('type', 'like', 'dian_event.%').whereRaw(`data->>'invoice_id' = ?`, [String(invoiceId)])).length > 0 ? true : undefined));
  await new Promise((resolve) => setTimeout(resolve, 1500)); // anything else would have been recorded by now
  return world.database.db('events').where({ company_id: companyId }).where('type', 'like', 'dian_event.%').whereRaw(`data->>'invoice_id' = ?`, [String(invoiceId)]);
}

/** A new invoice of the buyer whose first 030 failed on 8 HTTP 500s (nothing registered at DIAN). */
async function invoiceWithFailedEvent(t: Assertions, number: string) {
  const { cufe, invoice, send } = await invoiceOfTheBuyer(t, number);
  simulator.failNext(8, 'http500');
  t.deepEqual((await send()).result, { succeeded: false });
  t.deepEqual(simulator.events(cufe), []);
  return { cufe, invoice, send };
}

test.serial('DIAN failing every attempt (8 HTTP 500s): the event ends failed dian_unavailable after its 8 attempts, one dian_event.failed', async (t) => {
  const { company, cufe, invoice, send } = await invoiceOfTheBuyer(t, 'FE-DIAN-DOWN-1');
  const before = simulator.requests.length;
  simulator.failNext(8, 'http500');
  const started = await world.env.currentTimeMs();
  const { event, result } = await send();
  t.deepEqual(result, { succeeded: false });
  const seconds = ((await world.env.currentTimeMs()) - started) / 1000;
  t.true(seconds >= 5 + 10 + 20 + 40 + 80 + 160 + 300, `retried with backoff (${seconds} virtual s)`);
  t.deepEqual(simulator.requests.slice(before).map((request) => request.outcome), Array(8).fill('injected http500'), 'sent at each of the 8 attempts, nothing more');
  t.like(await world.database.db('dian_events').where({ id: event.id }).first(), { status: 'failed', error_code: 'dian_unavailable', retryable_failures: 8 });
  t.deepEqual(simulator.events(cufe), []);
  const published = await publishedFor(company.id, invoice.id);
  t.deepEqual(published.map((row: { type: string }) => row.type), ['dian_event.failed']);
  t.like(published[0].data, { invoice_id: invoice.id, succeeded: false, error: { code: 'dian_unavailable' } });
});

/**
 * Runs `body` while Postgres refuses to record an event's signed file (disk_full) for its first
 * `tries` tries, so that nothing goes out: a fault of our own dependency.
 */
async function whilePostgresRefusesSigning(tries: number, body: (tried: () => Promise<number>) => Promise<void>) {
  const condition = 'NEW.signed_xml_blob_key IS DISTINCT FROM OLD.signed_xml_blob_key';
  await whilePostgresRefusesUpdates(world.database.db, { table: 'dian_events', condition, tries }, body);
}

// Postgres refusing to record the signed event for longer than the event's 8 attempts: a
// dependency fault, which does not use them up. Until 2026-11-26 the 8th attempt ended the event
// failed (service_unavailable) although nothing was wrong with DIAN or the event.
test.serial('Postgres unable to record the signed event through 10 attempts: retried past the 8, then sent once and succeeded, one dian_event.completed', async (t) => {
  const { company, cufe, invoice, send } = await invoiceOfTheBuyer(t, 'FE-OUR-OUTAGE-1');
  await whilePostgresRefusesSigning(10, async (tried) => {
    const before = simulator.requests.length;
    const started = await world.env.currentTimeMs();
    const { event, result } = await send();
    t.deepEqual(result, { succeeded: true });
    const seconds = ((await world.env.currentTimeMs()) - started) / 1000;
    t.true(seconds >= 5 + 10 + 20 + 40 + 80 + 160 + 300 * 4, `waited out past the 8 attempts' 15 minutes (${seconds} virtual s)`);
    t.is(await tried(), 11, '10 attempts refused, the 11th recorded');
    const sends = simulator.requests.slice(before).filter((request) => request.operation === 'SendEventUpdateStatus');
    t.deepEqual(sends.map((request) => request.outcome), ['StatusCode 00'], 'sent once');
    const row = await world.database.db('dian_events').where({ id: event.id }).first();
    t.like(row, { status: 'succeeded', retryable_failures: 0 });
    t.deepEqual(simulator.events(cufe).map((registered) => registered.cude), [row.cude]);
    const published = await publishedFor(company.id, invoice.id);
    t.deepEqual(published.map((p: { type: string }) => p.type), ['dian_event.completed']);
  });
});

test.serial('an outage of ours through 10 attempts, then DIAN failing every attempt: DIAN still gets its 8 attempts before the event ends failed dian_unavailable', async (t) => {
  const { cufe, send } = await invoiceOfTheBuyer(t, 'FE-OUR-OUTAGE-2');
  await whilePostgresRefusesSigning(10, async (tried) => {
    const before = simulator.requests.length;
    simulator.failNext(8, 'http500');
    const { event, result } = await send();
    t.deepEqual(result, { succeeded: false });
    t.is(await tried(), 11, '10 attempts refused, the 11th recorded the signed file (the later ones find it recorded)');
    t.deepEqual(simulator.requests.slice(before).map((request) => request.outcome), Array(8).fill('injected http500'), 'sent at each of the 8 attempts after the outage');
    t.like(await world.database.db('dian_events').where({ id: event.id }).first(), { status: 'failed', error_code: 'dian_unavailable', retryable_failures: 8 });
    t.deepEqual(simulator.events(cufe), []);
  });
});

test.serial('an event sent again after its attempts ran out, when DIAN holds that event from other software: fails event_already_registered without sending', async (t) => {
  const { cufe, invoice, send } = await invoiceWithFailedEvent(t, 'FE-LOST-2');
  const foreignCude = 'f'.repeat(96);
  simulator.registerEvent(cufe, { code: '030', id: 'OTRO-7', senderNit: '900108281', cude: foreignCude });

  const sendsBefore = simulator.requests.filter((request) => request.operation === 'SendEventUpdateStatus').length;
  const second = await send();
  t.deepEqual(second.result, { succeeded: false });
  t.like(await world.database.db('dian_events').where({ id: second.event.id }).first(), { status: 'failed', error_code: 'event_already_registered', signed_xml_blob_key: null });
  t.is(simulator.requests.filter((request) => request.operation === 'SendEventUpdateStatus').length, sendsBefore, 'nothing sent');
  t.deepEqual((await world.database.db('dian_registered_events').where({ document_id: invoice.id })).map((row: { cude: string }) => row.cude), [foreignCude]);
});

test.serial('an event sent again after its attempts ran out, when DIAN cannot say what it holds (an unreadable answer): sent as before, registered once', async (t) => {
  const { cufe, send } = await invoiceWithFailedEvent(t, 'FE-LOST-3');
  const before = simulator.requests.length;
  // The next request, the check's GetStatusEvent, gets a page the gateway cannot read.
  simulator.failNext(1, 'noEnvelope');
  const second = await send();
  t.deepEqual(second.result, { succeeded: true });
  t.true(simulator.requests.slice(before).some((request) => request.outcome === 'injected answer without a SOAP envelope'), 'the check met the unreadable answer');
  t.is(simulator.events(cufe).length, 1, 'sent, and registered once');
  t.like(await world.database.db('dian_events').where({ id: second.event.id }).first(), { status: 'succeeded' });
});

/**
 * A new invoice of the buyer with its 030 and 032 registered and a 033 whose attempts all failed
 * with `failure` (answers lost: DIAN registered the first; HTTP 500s: DIAN registered nothing).
 * Then DC24c's window is made to have closed since: the 032 accepted on Friday 13 Nov 2026
 * (033 allowed until Thursday 19 Nov, Monday 16 a holiday) and the 033 signed on Wednesday 18 Nov,
 * inside the window. `resend` posts a new 033 and awaits its workflow.
 */
async function lateAcceptance(t: { is: (a: unknown, b: unknown) => void; deepEqual: (a: unknown, b: unknown) => void }, number: string, failure: 'lostAnswer' | 'http500') {
  const { company, key } = await theBuyer();
  const json = { ...bearer(key), 'Content-Type': 'application/json' };
  const cufe = createHash('sha384').update(`late-acceptance-${number}`).digest('hex');
  const accepted = await upload(world.apiUrl, key, company.id, { name: `${number}.xml`, bytes: demoInvoiceXml(number, cufe, '800197268', '900108281') });
  const invoice = (await waitForImport(world.apiUrl, key, company.id, accepted.body.id)).documents[0] as { id: number };
  await eventually(async () => (await world.database.db('documents').where({ id: invoice.id }).first())?.dian_events_synced_at ?? undefined);
  const post = (body: object) => fetch(`${world.apiUrl}/v1/companies/${company.id}/invoices/${invoice.id}/dian-events`, { method: 'POST', headers: json, body: JSON.stringify(body) });
  const send = async (body: object) => {
    const posted = await post(body);
    t.is(posted.status, 202);
    const event = (await posted.json()) as { id: number };
    return { event, result: await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianEvent(event.id)).result() };
  };
  t.deepEqual((await send({ event: '030', issuer: ISSUER })).result, { succeeded: true });
  t.deepEqual((await send({ event: '032', issuer: ISSUER })).result, { succeeded: true });
  simulator.failNext(8, failure);
  const first = await send({ event: '033' });
  t.deepEqual(first.result, { succeeded: false });
  await world.database.db('dian_events').where({ document_id: invoice.id, event: '032' }).update({ completed_at: new Date('2026-11-13T21:00:00Z') });
  await world.database.db('dian_events').where({ id: first.event.id }).update({ issued_at: new Date('2026-11-18T15:00:00Z') });
  const lost = await world.database.db('dian_events').where({ id: first.event.id }).first();
  t.is(lost.status, 'failed');
  const sends = () => simulator.requests.filter((request) => request.operation === 'SendEventUpdateStatus').length;
  return { cufe, invoice, lost, post, sends, resend: () => send({ event: '033' }) };
}

// A 033 whose every answer was lost while DIAN registered it inside DC24c's window, sent again
// after the window: the API refused it (409 tacitly_accepted) and so did the activity before it
// asked DIAN, so the invoice was reported never accepted expressly while DIAN held the acceptance.
test.serial('a 033 DIAN registered inside its window, answers lost, sent again after the window: 202, recorded as registered, nothing sent', async (t) => {
  const { cufe, lost, sends, resend } = await lateAcceptance(t, 'FE-LATE-1', 'lostAnswer');
  t.is(lost.error_code, 'dian_unavailable');
  const registered = simulator.events(cufe).filter((event) => event.code === '033');
  t.is(registered.length, 1, 'DIAN registered the first attempt');

  const before = simulator.requests.length;
  const sendsBefore = sends();
  const second = await resend();
  t.deepEqual(second.result, { succeeded: true });
  t.is(sends(), sendsBefore, 'no event sent again');
  t.true(simulator.requests.slice(before).some((request) => request.operation === 'GetStatusEvent'));
  const adopted = await world.database.db('dian_events').where({ id: second.event.id }).first();
  t.like(adopted, { status: 'succeeded', cude: registered[0]!.cude, signed_xml_blob_key: lost.signed_xml_blob_key });
  t.deepEqual(adopted.issued_at, lost.issued_at);
  t.is(simulator.events(cufe).filter((event) => event.code === '033').length, 1);
});

test.serial('a 033 whose attempts went out inside its window but DIAN does not hold, sent again after the window: 202, then failed tacitly_accepted, nothing sent', async (t) => {
  const { cufe, lost, post, sends, resend } = await lateAcceptance(t, 'FE-LATE-2', 'http500');
  t.is(lost.error_code, 'dian_unavailable');
  t.notDeepEqual(lost.signed_xml_blob_key, null, 'the attempt was signed and went out');
  t.deepEqual(simulator.events(cufe).map((event) => event.code), ['030', '032']);

  const before = simulator.requests.length;
  const sendsBefore = sends();
  const second = await resend();
  t.deepEqual(second.result, { succeeded: false });
  t.is(sends(), sendsBefore, 'nothing sent');
  t.true(simulator.requests.slice(before).some((request) => request.operation === 'GetStatusEvent'), 'DIAN was asked');
  const row = await world.database.db('dian_events').where({ id: second.event.id }).first();
  t.like(row, { status: 'failed', error_code: 'tacitly_accepted', signed_xml_blob_key: null });
  t.regex(row.error_message, /tacitly accepted.*until 2026-11-19 \(032 registered 2026-11-13\)/);
  t.deepEqual(simulator.events(cufe).map((event) => event.code), ['030', '032']);

  // The earlier attempt can be asked about again (DIAN may have been slow to list it): still 202.
  const again = await post({ event: '033' });
  t.is(again.status, 202);
  const event = (await again.json()) as { id: number };
  t.deepEqual(await world.env.client.workflow.getHandle(workflowIdsFor(world.taskQueue).dianEvent(event.id)).result(), { succeeded: false });
});

test.serial('after the window, a 033 with no earlier attempt that went out inside it is refused: 409 tacitly_accepted, nothing queued', async (t) => {
  const { lost, post, invoice } = await lateAcceptance(t, 'FE-LATE-3', 'http500');
  // The attempt signed on Friday 20 Nov, after the deadline (DIAN would have refused it by DC24c).
  await world.database.db('dian_events').where({ id: lost.id }).update({ issued_at: new Date('2026-11-20T15:00:00Z') });
  const late = await post({ event: '033' });
  t.is(late.status, 409);
  const body = (await late.json()) as { error: { code: string; message: string } };
  t.is(body.error.code, 'tacitly_accepted');
  t.regex(body.error.message, /until 2026-11-19 \(032 registered 2026-11-13\)/);
  // None that went out at all: likewise.
  await world.database.db('dian_events').where({ id: lost.id }).update({ issued_at: new Date('2026-11-18T15:00:00Z'), signed_xml_blob_key: null });
  t.is((await post({ event: '033' })).status, 409);
  t.is((await world.database.db('dian_events').where({ document_id: invoice.id, event: '033' })).length, 1, 'no event recorded');
});

test.serial('a 033 sent again after the window, when DIAN cannot say what it holds (an unreadable answer): fails with that answer, nothing sent, and may be asked again', async (t) => {
  const { cufe, post, sends, resend } = await lateAcceptance(t, 'FE-LATE-4', 'http500');
  const before = simulator.requests.length;
  const sendsBefore = sends();
  // The check's GetStatusEvent gets a page the gateway cannot read. Inside the window the event
  // would go out as before the check; past it a new 033 is refused by DIAN (DC24c) anyway, and
  // failing tacitly_accepted would say what nobody knows.
  simulator.failNext(1, 'noEnvelope');
  const second = await resend();
  t.deepEqual(second.result, { succeeded: false });
  t.true(simulator.requests.slice(before).some((request) => request.outcome === 'injected answer without a SOAP envelope'), 'the check met the unreadable answer');
  t.is(sends(), sendsBefore, 'nothing sent');
  const row = await world.database.db('dian_events').where({ id: second.event.id }).first();
  t.like(row, { status: 'failed', error_code: 'dian_invalid_response', signed_xml_blob_key: null });
  t.deepEqual(simulator.events(cufe).map((event) => event.code), ['030', '032']);
  t.is((await post({ event: '033' })).status, 202, 'asked again');
});
