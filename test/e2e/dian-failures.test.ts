import { createHash } from 'node:crypto';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { startDianWorld, type DianWorld } from '../support/dian-world';
import { eventually } from '../support/eventually';
import { workflowIdsFor } from '../../workflows/messages';
import { fixture, upload, waitForImport } from '../support/ingestion';

// DIAN buyer events that cannot be registered: a rejection by DIAN (the simulator) ends with
// exactly one dian_event.failed; sales and credit notes are refused by the API.
let world: DianWorld;
const ISSUER = { id_type: '13', id_number: '1020304050', first_name: 'Ana', family_name: 'Pérez', job_title: 'Contadora' };
const COMPANY_NIT = '900108281';
const cufeOf = (label: string) => createHash('sha384').update(`dian-failures-${label}`).digest('hex');

test.before(async () => {
  world = await startDianWorld();
});
test.after.always(async () => {
  await world?.close();
});

async function importOne(name: string, bytes: Buffer): Promise<{ id: number; cufe: string; kind: string }> {
  const accepted = await upload(world.api.url, world.key, world.company.id, { name, bytes });
  const file = await waitForImport(world.api.url, world.key, world.company.id, accepted.body.id);
  if (file.status !== 'DONE' || file.documents.length !== 1) throw new Error(`${name} was not imported: ${JSON.stringify(file)}`);
  return file.documents[0];
}

/**
 * A purchase invoice imported by the company; the import teaches the simulator (DIAN) the
 * document, as for every company in environment simulator.
 */
async function purchaseKnownAtDian(label: string, number: string) {
  const cufe = cufeOf(label);
  const invoice = await importOne(`${label}.xml`, demoInvoiceXml(number, cufe, '800197268', COMPANY_NIT));
  await eventually(() => world.simulator.catalog.documents.get(cufe));
  return { cufe, invoice };
}

const eventsPath = (invoiceId: number) => `/v1/companies/${world.company.id}/invoices/${invoiceId}/dian-events`;

test.serial('DIAN rejects an event for a CUFE it does not know: one dian_event.failed with DIAN\'s code, the record failed', async (t) => {
  // A purchase invoice the company has, but DIAN does not (rule LGC03). The import teaches the
  // simulator every document of a simulator-mode company; forget it, as DIAN never knew it.
  const cufe = cufeOf('unknown-at-dian');
  const invoice = await importOne('unknown.xml', demoInvoiceXml('FE-UNK-1', cufe, '800197268', COMPANY_NIT));
  t.is(invoice.cufe, cufe);
  await eventually(() => world.simulator.catalog.documents.get(cufe));
  world.simulator.catalog.documents.delete(cufe);

  const posted = await world.call('POST', eventsPath(invoice.id), { event: '030', issuer: ISSUER });
  t.is(posted.status, 202, JSON.stringify(posted.body));
  const row = await eventually(async () => {
    const list = await world.call('GET', eventsPath(invoice.id));
    const found = list.body.data.find((item: { id: number }) => item.id === posted.body.id);
    return found && found.status !== 'pending' ? found : undefined;
  });
  t.like(row, { event: '030', status: 'failed', succeeded: false });
  t.is(row.error.code, '99');
  t.regex(row.error.message, /LGC03/);

  const failed = await eventually(() => {
    const events = world.events('dian_event.failed').filter((event) => event.data.invoice_id === invoice.id);
    return events.length > 0 ? events : undefined;
  });
  t.deepEqual(Object.keys(failed[0]!.data).sort(), ['cufe', 'error', 'event', 'invoice_id', 'succeeded']);
  t.like(failed[0]!.data, { invoice_id: invoice.id, cufe, event: '030', succeeded: false, error: { code: '99' } });
  t.deepEqual(Object.keys(failed[0]!.data.error).sort(), ['code', 'message']);
  t.regex(failed[0]!.data.error.message, /Regla: LGC03/);
  // Give a stray duplicate or a wrong completed event time to arrive before counting.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  t.is(world.events('dian_event.failed').filter((event) => event.data.invoice_id === invoice.id).length, 1);
  t.is(world.events('dian_event.completed').filter((event) => event.data.invoice_id === invoice.id).length, 0);
  t.deepEqual(world.simulator.events(cufe), []);
});

test.serial('a duplicate at DIAN (the event already registered there) ends dian_event.failed, never completed', async (t) => {
  // The company has the invoice and no event for it; DIAN already holds a 030 from elsewhere.
  const { cufe, invoice } = await purchaseKnownAtDian('duplicate-at-dian', 'FE-DUP-1');
  // The import read DIAN's events (none); the 030 from elsewhere arrives after that sync.
  await eventually(async () => ((await world.call('GET', eventsPath(invoice.id))).body.registered_at_dian_synced_at ? true : undefined));
  world.simulator.registerEvent(cufe, { code: '030', id: 'OTRO-1', cude: 'f'.repeat(96), senderNit: COMPANY_NIT, date: '2026-11-03', time: '10:00:00' });

  const posted = await world.call('POST', eventsPath(invoice.id), { event: '030', issuer: ISSUER });
  t.is(posted.status, 202, JSON.stringify(posted.body));
  const failed = await eventually(() => world.events('dian_event.failed').find((event) => event.data.invoice_id === invoice.id));
  t.like(failed.data, { invoice_id: invoice.id, cufe, event: '030', succeeded: false, error: { code: '99' } });
  t.regex(failed.data.error.message, /LGC01/);
  const list = await world.call('GET', eventsPath(invoice.id));
  t.like(list.body.data[0], { id: posted.body.id, status: 'failed', succeeded: false });
  t.is(world.events('dian_event.completed').filter((event) => event.data.invoice_id === invoice.id).length, 0);
  t.is(world.simulator.events(cufe).length, 1, 'DIAN still has only the earlier 030');
  // The refusal refreshed what DIAN holds for the invoice: its 030 is listed, so 032 may follow
  // (it was 409 event_out_of_order until a manual sync).
  t.like(list.body.registered_at_dian, [{ event: '030', cude: 'f'.repeat(96) }]);
  const receipt = await world.call('POST', eventsPath(invoice.id), { event: '032', issuer: ISSUER });
  t.is(receipt.status, 202, JSON.stringify(receipt.body));
});

test.serial('an event number another program already used (Regla 90 with the earlier key) fails dian_duplicate_event_number; the next number succeeds', async (t) => {
  const settings = await world.call('GET', `/v1/companies/${world.company.id}/dian-settings`);
  t.is(settings.body.event_number_prefix, 'DIS');
  const { cufe, invoice } = await purchaseKnownAtDian('number-clash', 'FE-CLASH-1');
  // The next number the service will use; other software sent a 030 with it for another invoice.
  const next = Number((await world.api.database.db('dian_event_sequences').where({ company_id: world.company.id }).first())?.last_value ?? 0) + 1;
  const otherCufe = cufeOf('other-software-invoice');
  world.simulator.registerEvent(otherCufe, { code: '030', id: `DIS${next}`, cude: 'e'.repeat(96), senderNit: COMPANY_NIT });

  const clashing = await world.call('POST', eventsPath(invoice.id), { event: '030', issuer: ISSUER });
  t.is(clashing.status, 202, JSON.stringify(clashing.body));
  t.is(clashing.body.number, `DIS${next}`);
  const failed = await eventually(() => world.events('dian_event.failed').find((event) => event.data.invoice_id === invoice.id));
  t.like(failed.data, { invoice_id: invoice.id, cufe, event: '030', succeeded: false, error: { code: 'dian_duplicate_event_number' } });
  t.regex(failed.data.error.message, new RegExp(`numbered DIS${next} .*${'e'.repeat(96)}`));
  t.deepEqual(world.simulator.events(cufe), [], 'nothing registered for our invoice');
  t.is(world.events('dian_event.completed').filter((event) => event.data.invoice_id === invoice.id).length, 0);

  const again = await world.call('POST', eventsPath(invoice.id), { event: '030', issuer: ISSUER });
  t.is(again.status, 202, JSON.stringify(again.body));
  t.is(again.body.number, `DIS${next + 1}`);
  const completed = await eventually(() => world.events('dian_event.completed').find((event) => event.data.invoice_id === invoice.id));
  t.like(completed.data, { event: '030', succeeded: true });
  const list = await world.call('GET', eventsPath(invoice.id));
  t.like(list.body.data, [{ number: `DIS${next}`, status: 'failed' }, { number: `DIS${next + 1}`, status: 'succeeded' }]);
  t.deepEqual(world.simulator.events(cufe).map((event) => [event.code, event.id, event.cude]), [['030', `DIS${next + 1}`, list.body.data[1].cude]]);
});

test.serial('a configured event_number_prefix numbers the next events', async (t) => {
  const put = await world.call('PUT', `/v1/companies/${world.company.id}/dian-settings`, {
    environment: 'simulator', software_id: 'c7f0b5a4-1111-4a0e-9d8b-000000000001', software_pin: '12345',
    certificate_p12_base64: world.certificate.p12.toString('base64'), certificate_password: world.certificate.password,
    event_number_prefix: 'GMO-EV', software_provider_nit: '901245780',
  });
  t.is(put.status, 200, JSON.stringify(put.body));
  t.like(put.body, { event_number_prefix: 'GMO-EV', software_provider_nit: '901245780' });
  const bad = await world.call('PUT', `/v1/companies/${world.company.id}/dian-settings`, {
    environment: 'simulator', software_id: 'x', software_pin: 'y', certificate_p12_base64: world.certificate.p12.toString('base64'),
    certificate_password: world.certificate.password, event_number_prefix: 'no spaces',
  });
  t.is(bad.status, 400);
  t.is(bad.body.error.param, 'event_number_prefix');
  const { cufe, invoice } = await purchaseKnownAtDian('prefixed', 'FE-PFX-1');
  const posted = await world.call('POST', eventsPath(invoice.id), { event: '030', issuer: ISSUER });
  t.regex(posted.body.number, /^GMO-EV[0-9]+$/);
  await eventually(() => world.events('dian_event.completed').find((event) => event.data.invoice_id === invoice.id));
  t.is(world.simulator.events(cufe)[0]?.id, posted.body.number);
  // A technology provider's software: its NIT is the ProviderID.
  const row = await world.api.database.db('dian_events').where({ id: posted.body.id }).first();
  const signed = (await world.api.dependencies.blobStore.get(row.signed_xml_blob_key)).toString('utf8');
  t.regex(signed, /<sts:ProviderID [^>]*schemeID="[0-9]" schemeName="31">901245780<\/sts:ProviderID>/);
});

test.serial('an import reads the events DIAN already has; a portal 030 found by POST …/sync lets 032 through', async (t) => {
  // Invoice A: DIAN already has a 030 from the portal when the company imports it.
  const cufeA = cufeOf('portal-before-import');
  world.simulator.registerEvent(cufeA, { code: '030', id: 'PORTAL-1', senderNit: COMPANY_NIT, cude: 'a1'.repeat(48), date: '2026-11-03' });
  const { invoice: invoiceA } = await purchaseKnownAtDian('portal-before-import', 'FE-PORTAL-A');
  const listA = await eventually(async () => {
    const list = await world.call('GET', eventsPath(invoiceA.id));
    return list.body.registered_at_dian.length ? list.body : undefined;
  });
  t.deepEqual(listA.registered_at_dian, [{ event: '030', description: 'Acuse de recibo de Factura Electrónica de Venta', cude: 'a1'.repeat(48), effective_date: '2026-11-03' }]);
  t.deepEqual(listA.data, []);
  const again = await world.call('POST', eventsPath(invoiceA.id), { event: '030', issuer: ISSUER });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'event_already_registered');

  // Invoice B: the portal 030 arrives after the import; the record learns it through /sync.
  const { cufe: cufeB, invoice: invoiceB } = await purchaseKnownAtDian('portal-after-import', 'FE-PORTAL-B');
  await eventually(async () => ((await world.call('GET', eventsPath(invoiceB.id))).body.registered_at_dian_synced_at ? true : undefined));
  world.simulator.registerEvent(cufeB, { code: '030', id: 'PORTAL-2', senderNit: COMPANY_NIT, cude: 'b2'.repeat(48) });
  const early = await world.call('POST', eventsPath(invoiceB.id), { event: '032', issuer: ISSUER });
  t.is(early.status, 409);
  t.is(early.body.error.code, 'event_out_of_order');
  const sync = await world.call('POST', `${eventsPath(invoiceB.id)}/sync`);
  t.is(sync.status, 202, JSON.stringify(sync.body));
  t.like(sync.body, { invoice_id: invoiceB.id, cufe: cufeB, status: 'syncing' });
  await eventually(async () => ((await world.call('GET', eventsPath(invoiceB.id))).body.registered_at_dian.length ? true : undefined));
  const receipt = await world.call('POST', eventsPath(invoiceB.id), { event: '032', issuer: ISSUER });
  t.is(receipt.status, 202, JSON.stringify(receipt.body));
  const done = await eventually(() => world.events('dian_event.completed').find((event) => event.data.invoice_id === invoiceB.id));
  t.like(done.data, { event: '032', succeeded: true });
  t.deepEqual(world.simulator.events(cufeB).map((event) => event.code), ['030', '032']);

  const sale = await world.call('POST', `/v1/companies/${world.company.id}/invoices/999999/dian-events/sync`);
  t.is(sale.status, 404);
});

test.serial('033 after the third Colombian business day following the 032 is refused: 409 tacitly_accepted', async (t) => {
  const { invoice } = await purchaseKnownAtDian('tacit', 'FE-TACIT-1');
  for (const event of ['030', '032']) {
    const posted = await world.call('POST', eventsPath(invoice.id), { event, issuer: ISSUER });
    t.is(posted.status, 202, JSON.stringify(posted.body));
    await eventually(() => world.events('dian_event.completed').find((e) => e.data.invoice_id === invoice.id && e.data.event === event));
  }
  // The 032 was registered on Friday 13 Nov 2026 at 16:00 (Colombia): the deadline was Thursday 19 Nov
  // (Monday 16 was a holiday).
  await world.api.database.db('dian_events').where({ document_id: invoice.id, event: '032' }).update({ completed_at: new Date('2026-11-13T21:00:00Z') });
  const late = await world.call('POST', eventsPath(invoice.id), { event: '033' });
  t.is(late.status, 409);
  t.is(late.body.error.code, 'tacitly_accepted');
  t.regex(late.body.error.message, /until 2026-11-19 \(032 registered 2026-11-13\)/);
});

test.serial('a sale (the company is the supplier) is refused with 409 not_a_purchase', async (t) => {
  const sale = await importOne('sale.xml', demoInvoiceXml('FE-SALE-1', cufeOf('sale'), COMPANY_NIT, '800197268'));
  const row = await world.api.database.db('documents').where({ id: sale.id }).first();
  t.is(row.kind, 'sale');
  const response = await world.call('POST', eventsPath(sale.id), { event: '030', issuer: ISSUER });
  t.is(response.status, 409);
  t.is(response.body.error.code, 'not_a_purchase');
  t.is((await world.call('GET', eventsPath(sale.id))).body.data?.length ?? 0, 0);
});

test.serial('a credit note\'s id is not an invoice: 404', async (t) => {
  const note = await importOne('creditnote-usd.xml', fixture('creditnote-usd.xml'));
  const response = await world.call('POST', eventsPath(note.id), { event: '033' });
  t.is(response.status, 404);
  t.is(response.body.error.code, 'not_found');
});

test.serial("an operator's cancel of an event waiting to retry: dian_event.failed with code cancelled, once, and nothing sent again", async (t) => {
  const { cufe, invoice } = await purchaseKnownAtDian('cancelled-by-operator', 'FE-CANCEL-1');
  // The import's own GetStatusEvent must not take the injected fault.
  await eventually(async () => ((await world.call('GET', eventsPath(invoice.id))).body.registered_at_dian_synced_at ? true : undefined));
  world.simulator.failNext(1, 'http500');
  const before = world.simulator.requests.length;
  const posted = await world.call('POST', eventsPath(invoice.id), { event: '030', issuer: ISSUER });
  t.is(posted.status, 202, JSON.stringify(posted.body));
  // DIAN answered 500: the next attempt is 5 s away. Cancel now, as the runbook does.
  await eventually(() => (world.simulator.requests.slice(before).some((request) => request.outcome === 'injected http500') ? true : undefined));
  const workflowId = workflowIdsFor(world.api.config.temporal.taskQueue).dianEvent(posted.body.id);
  await world.api.temporal.client.workflow.getHandle(workflowId).cancel();

  const failed = await eventually(() => world.events('dian_event.failed').find((event) => event.data.invoice_id === invoice.id));
  t.like(failed.data, { invoice_id: invoice.id, cufe, event: '030', succeeded: false, error: { code: 'cancelled' } });
  const row = (await world.call('GET', eventsPath(invoice.id))).body.data.find((item: { id: number }) => item.id === posted.body.id);
  t.like(row, { status: 'failed', succeeded: false, error: { code: 'cancelled' } });
  // Past the retry's due time: nothing sent again, nothing registered, no second event.
  await new Promise((resolve) => setTimeout(resolve, 6_000));
  t.is(world.simulator.requests.slice(before).filter((request) => request.operation === 'SendEventUpdateStatus').length, 0);
  t.deepEqual(world.simulator.events(cufe), []);
  t.is(world.events('dian_event.failed').filter((event) => event.data.invoice_id === invoice.id).length, 1);
  t.is(world.events('dian_event.completed').filter((event) => event.data.invoice_id === invoice.id).length, 0);
});

test.serial('an event recorded but never queued (the API died between the two) is started by the next request for its invoice, which is 409; it ends with its event', async (t) => {
  const { cufe, invoice } = await purchaseKnownAtDian('stranded-event', 'FE-STRAND-1');
  const issuer = { idType: ISSUER.id_type, idNumber: ISSUER.id_number, firstName: ISSUER.first_name, familyName: ISSUER.family_name, jobTitle: ISSUER.job_title };
  const stranded = await world.api.database.repositories.dianEvents.insert(world.company.id, invoice.id, '030', issuer, 'DIS');
  const again = await world.call('POST', eventsPath(invoice.id), { event: '030', issuer: ISSUER });
  t.is(again.status, 409);
  t.is(again.body.error.code, 'event_in_progress');
  const completed = await eventually(() => world.events('dian_event.completed').find((event) => event.data.invoice_id === invoice.id));
  t.like(completed.data, { invoice_id: invoice.id, event: '030', succeeded: true });
  t.is(world.simulator.events(cufe).length, 1);
  const list = await world.call('GET', eventsPath(invoice.id));
  t.like(list.body.data, [{ id: Number(stranded.id), status: 'succeeded' }]);
});
