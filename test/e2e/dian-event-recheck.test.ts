import test from 'ava';
import { ApplicationFailure } from '@temporalio/common';
import { createDianEventActivities } from '../../activities/dian-events';
import { syncInvoiceEvents } from '../../activities/dian-documents';
import { companyDian } from '../../activities/dian-gateway';
import { createSoapDianGateway } from '../../integrations/dian/soap-gateway';
import { startDianSimulator } from '../../integrations/dian/simulator/server';
import { startDianWorld, type DianWorld } from '../support/dian-world';
import { eventually } from '../support/eventually';
import { fixture, upload, waitForImport } from '../support/ingestion';

// Issue #12: the activity that sends an event checks eligibility (types 01–04 with a CUFE) and
// 033's business-day window again, so an event queued before a reclassification, or left waiting
// past DC24c, is never sent wrongly.
let world: DianWorld;
let invoice: { id: number; cufe: string };
const ISSUER = { id_type: '13', id_number: '1020304050', first_name: 'Ana', family_name: 'Pérez', job_title: 'Contadora' };
const ELECTRONIC_INVOICE = { dian_document_type: 'electronic_invoice', dian_type_code: '01', code_scheme: 'CUFE' };

test.before(async () => {
  world = await startDianWorld();
  const accepted = await upload(world.api.url, world.key, world.company.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  const file = await waitForImport(world.api.url, world.key, world.company.id, accepted.body.id);
  invoice = { id: file.documents[0].id, cufe: file.documents[0].cufe };
  // The import's own GetStatusEvent sync goes first, so the failure injected below hits the send.
  await eventually(async () => (await world.call('GET', eventsPath())).body.registered_at_dian_synced_at ?? undefined);
});
test.after.always(async () => {
  await world?.close();
});

const eventsPath = () => `/v1/companies/${world.company.id}/invoices/${invoice.id}/dian-events`;
const sends = () => world.simulator.requests.filter((request) => request.operation === 'SendEventUpdateStatus').length;

test.serial('an event queued before the invoice was reclassified as a POS document fails not_eligible_for_events and is not sent again', async (t) => {
  world.simulator.failNext(1, 'http500');
  const posted = await world.call('POST', eventsPath(), { event: '030', issuer: ISSUER });
  t.is(posted.status, 202);
  // The first attempt went out and failed in transport; before the retry the invoice turns out to be a POS ticket.
  await eventually(() => world.simulator.requests.some((request) => request.outcome === 'injected http500') || undefined);
  await world.api.database.db('documents').where({ id: invoice.id }).update({ dian_document_type: 'pos_equivalent', dian_type_code: '20', code_scheme: 'CUDE' });
  const failed = await eventually(() => world.events('dian_event.failed').find((event) => event.data.invoice_id === invoice.id));
  t.like(failed.data.error, { code: 'not_eligible_for_events' });
  t.regex(failed.data.error.message, /POS equivalent document/);
  t.is(sends(), 0, 'no SendEventUpdateStatus reached DIAN');
  t.deepEqual(world.simulator.events(invoice.cufe), []);
  const row = (await world.call('GET', eventsPath())).body.data.find((item: { id: number }) => item.id === posted.body.id);
  t.like(row, { status: 'failed', succeeded: false });
});

test.serial('a 033 that reaches the sending activity after the DC24c window fails tacitly_accepted without being sent', async (t) => {
  await world.api.database.db('documents').where({ id: invoice.id }).update(ELECTRONIC_INVOICE);
  const { repositories, secretBox, blobStore, config } = world.api.dependencies;
  // Its 032, accepted by DIAN on Friday 6 Nov 2026: the window closed on Wednesday 11 Nov.
  const receipt = await repositories.dianEvents.insert(world.company.id, invoice.id, '032', null, 'T');
  await repositories.dianEvents.markSucceeded(receipt.id, 'e'.repeat(96));
  await world.api.database.db('dian_events').where({ id: receipt.id }).update({ completed_at: new Date('2026-11-06T15:00:00Z') });
  const acceptance = await repositories.dianEvents.insert(world.company.id, invoice.id, '033', null, 'T');
  const before = sends();

  const activities = createDianEventActivities({ repositories, secretBox, blobStore, dian: config.dian });
  const error = await t.throwsAsync(activities.sendDianEvent(acceptance.id), { instanceOf: ApplicationFailure });
  t.is(error?.type, 'tacitly_accepted');
  t.true(error?.nonRetryable);
  t.regex(error!.message, /until 2026-11-11 \(032 registered 2026-11-06\)/);
  t.is(sends(), before, 'nothing was sent');
  t.is((await repositories.dianEvents.findById(acceptance.id))?.signed_xml_blob_key, null, 'nothing was signed or stored');
});

test.serial('the same activity still sends an eligible 030', async (t) => {
  const { repositories, secretBox, blobStore, config } = world.api.dependencies;
  const event = await repositories.dianEvents.insert(world.company.id, invoice.id, '030', ISSUER_ROW, 'T');
  const activities = createDianEventActivities({ repositories, secretBox, blobStore, dian: config.dian });
  const { cude } = await activities.sendDianEvent(event.id);
  t.regex(cude, /^[0-9a-f]{96}$/);
  t.deepEqual(world.simulator.events(invoice.cufe).map((registered) => registered.code), ['030']);
});

const ISSUER_ROW = { idType: '13', idNumber: '1020304050', firstName: 'Ana', familyName: 'Pérez', jobTitle: 'Contadora' };

test.serial('an event that waited days before its first attempt is dated when it is signed, and a retry after a lost answer signs the same instant', async (t) => {
  const { repositories, secretBox, blobStore, config } = world.api.dependencies;
  // Another invoice: the first one already has its 030 and 032.
  const accepted = await upload(world.api.url, world.key, world.company.id, { name: 'toolbox-excluded-vat.xml', bytes: fixture('toolbox-excluded-vat.xml') });
  const other = (await waitForImport(world.api.url, world.key, world.company.id, accepted.body.id)).documents[0];
  const otherEvents = `/v1/companies/${world.company.id}/invoices/${other.id}/dian-events`;
  await eventually(async () => (await world.call('GET', otherEvents)).body.registered_at_dian_synced_at ?? undefined);
  // Queued three days ago, never started (an API killed between recording and queuing it; the 409 recovery starts it now).
  const event = await repositories.dianEvents.insert(world.company.id, other.id, '030', ISSUER_ROW, 'T');
  const threeDaysAgo = new Date(Date.now() - 3 * 24 * 3600 * 1000);
  await world.api.database.db('dian_events').where({ id: event.id }).update({ created_at: threeDaysAgo });
  const activities = createDianEventActivities({ repositories, secretBox, blobStore, dian: config.dian });
  const signed = async () => {
    const row = await repositories.dianEvents.findById(event.id);
    const xml = (await blobStore.get(String(row?.signed_xml_blob_key))).toString('utf8');
    return { issued: /<cbc:IssueDate>([^<]+)<\/cbc:IssueDate><cbc:IssueTime>([^<]+)</.exec(xml)?.slice(1), cude: /CUDE-SHA384[^>]*>([0-9a-f]+)</.exec(xml)?.[1], row };
  };
  const colombianDay = (instant: Date) => new Date(instant.getTime() - 5 * 3600 * 1000).toISOString().slice(0, 10);

  world.simulator.failNext(1, 'http500');
  await t.throwsAsync(activities.sendDianEvent(event.id));
  const first = await signed();
  t.is(first.issued?.[0], colombianDay(first.row!.issued_at!), 'dated by its first attempt');
  t.not(first.issued?.[0], colombianDay(threeDaysAgo), 'not by the day it was queued');
  t.true(Math.abs(first.row!.issued_at!.getTime() - Date.now()) < 60_000);

  const { cude } = await activities.sendDianEvent(event.id);
  const retried = await signed();
  t.deepEqual(retried.issued, first.issued, 'the retry signs the first attempt instant');
  t.is(retried.cude, first.cude);
  t.is(cude, first.cude ?? '');
});

test.serial('an event queued before the settings moved to the other DIAN environment fails dian_environment_mismatch without being sent', async (t) => {
  const { repositories, secretBox, blobStore, config } = world.api.dependencies;
  await world.api.database.db('documents').where({ id: invoice.id }).update(ELECTRONIC_INVOICE);
  // The invoice (SETP990000002) was validated in habilitación; the company now sends to production,
  // whose catalogue does not hold it.
  t.is((await world.call('GET', `/v1/companies/${world.company.id}/invoices/${invoice.id}`)).body.dian_environment, 'testing');
  const event = await repositories.dianEvents.insert(world.company.id, invoice.id, '030', ISSUER_ROW, 'T');
  await world.api.database.db('company_dian_settings').where({ company_id: world.company.id }).update({ environment: 'produccion' });
  try {
    const activities = createDianEventActivities({ repositories, secretBox, blobStore, dian: config.dian });
    const error = await t.throwsAsync(activities.sendDianEvent(event.id), { instanceOf: ApplicationFailure });
    t.is(error?.type, 'dian_environment_mismatch');
    t.true(error?.nonRetryable);
    t.regex(error?.message ?? '', /habilitación \(testing\) environment.*produccion/);
    t.is((await repositories.dianEvents.findById(event.id))?.signed_xml_blob_key, null, 'nothing was signed');
  } finally {
    await world.api.database.db('company_dian_settings').where({ company_id: world.company.id }).update({ environment: 'simulator' });
  }
});

// Temporal frozen during POST …/dian-events: the start answered DEADLINE_EXCEEDED, the API marked
// the row failed not_started and told the client to send it again, and the start took effect
// once Temporal resumed: its workflow sent the event too, so a client that resent it had DIAN
// receive it twice under two numbers (found by a fault-injection review).
test.serial('an event the API gave up on (failed not_started) is never sent by a workflow that started after all', async (t) => {
  const { repositories, secretBox, blobStore, config } = world.api.dependencies;
  await world.api.database.db('documents').where({ id: invoice.id }).update(ELECTRONIC_INVOICE);
  const event = await repositories.dianEvents.insert(world.company.id, invoice.id, '030', ISSUER_ROW, 'T');
  await repositories.dianEvents.markFailed(event.id, 'not_started', 'The event could not be queued; send it again.');
  const before = sends();
  const activities = createDianEventActivities({ repositories, secretBox, blobStore, dian: config.dian });
  const error = await t.throwsAsync(activities.sendDianEvent(event.id), { instanceOf: ApplicationFailure });
  t.is(error?.type, 'not_started');
  t.true(error?.nonRetryable);
  t.is(sends(), before, 'nothing was sent');
  t.like(await repositories.dianEvents.findById(event.id), { status: 'failed', error_code: 'not_started', signed_xml_blob_key: null });
});

// A sync under settings of the other DIAN environment asked a catalogue that never held the
// invoice, whose "no events" answer replaced registered_at_dian: the invoice's 030 vanished and
// its 032 became 409 event_out_of_order until a sync in the right environment.
test.serial('a sync under settings of the other DIAN environment leaves registered_at_dian as it was and asks nothing; the API refuses it with 409', async (t) => {
  const { repositories, secretBox, blobStore, config } = world.api.dependencies;
  await world.api.database.db('documents').where({ id: invoice.id }).update(ELECTRONIC_INVOICE);
  const deps = { repositories, secretBox, blobStore, dian: config.dian };
  t.true(await syncInvoiceEvents(deps, invoice.id) > 0, 'DIAN (the simulator) lists the invoice\'s events');
  const known = await repositories.dianRegisteredEvents.listForDocument(world.company.id, invoice.id);
  t.true(known.some((event) => event.event === '030'));
  const syncedAt = await repositories.dianRegisteredEvents.syncedAt(world.company.id, invoice.id);

  // DIAN's production environment, which never validated this habilitación invoice (an empty simulator plays it).
  const production = await startDianSimulator();
  try {
    const simulatorDian = await companyDian(deps, world.company.id);
    const productionDian = async () => ({
      ...simulatorDian,
      settings: { ...simulatorDian.settings, environment: 'produccion' as const },
      gateway: createSoapDianGateway({ url: production.url, credentials: { privateKeyPem: simulatorDian.certificate.privateKeyPem, certificatePem: simulatorDian.certificate.certificatePem } }),
    });
    t.is(await syncInvoiceEvents(deps, invoice.id, productionDian), 0);
    t.deepEqual(production.requests, [], 'nothing asked of the other environment');
    t.deepEqual(await repositories.dianRegisteredEvents.listForDocument(world.company.id, invoice.id), known);
    t.deepEqual(await repositories.dianRegisteredEvents.syncedAt(world.company.id, invoice.id), syncedAt);
  } finally {
    await production.close();
  }

  await world.api.database.db('company_dian_settings').where({ company_id: world.company.id }).update({ environment: 'produccion' });
  try {
    const refused = await world.call('POST', `${eventsPath()}/sync`);
    t.is(refused.status, 409);
    t.is(refused.body.error.code, 'dian_environment_mismatch');
  } finally {
    await world.api.database.db('company_dian_settings').where({ company_id: world.company.id }).update({ environment: 'simulator' });
  }
});
