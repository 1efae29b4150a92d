import { createHash } from 'node:crypto';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { startDianWorld, type DianWorld } from '../support/dian-world';
import { eventually } from '../support/eventually';
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

const eventsPath = (invoiceId: number) => `/v1/companies/${world.company.id}/invoices/${invoiceId}/dian-events`;

test.serial('DIAN rejects an event for a CUFE it does not know: one dian_event.failed with DIAN\'s code, the record failed', async (t) => {
  // A purchase invoice the company has, but the simulator's catalog does not (rule LGC03).
  const cufe = cufeOf('unknown-at-dian');
  const invoice = await importOne('unknown.xml', demoInvoiceXml('FE-UNK-1', cufe, '800197268', COMPANY_NIT));
  t.is(invoice.cufe, cufe);
  t.false(world.simulator.catalog.documents.has(cufe));

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
  const cufe = cufeOf('duplicate-at-dian');
  const xml = demoInvoiceXml('FE-DUP-1', cufe, '800197268', COMPANY_NIT);
  world.simulator.addDocument(cufe, xml, { receiverNit: COMPANY_NIT, senderNit: '800197268', issueDate: '2026-11-02', documentType: '01' });
  world.simulator.catalog.eventsByCufe.set(cufe, [
    { code: '030', description: 'Acuse de recibo de Factura Electrónica de Venta', cude: 'f'.repeat(96), senderNit: COMPANY_NIT, date: '2026-11-03', time: '10:00:00' },
  ]);
  const invoice = await importOne('duplicate.xml', xml);

  const posted = await world.call('POST', eventsPath(invoice.id), { event: '030', issuer: ISSUER });
  t.is(posted.status, 202, JSON.stringify(posted.body));
  const failed = await eventually(() => world.events('dian_event.failed').find((event) => event.data.invoice_id === invoice.id));
  t.like(failed.data, { invoice_id: invoice.id, cufe, event: '030', succeeded: false, error: { code: '99' } });
  t.regex(failed.data.error.message, /LGC01/);
  const list = await world.call('GET', eventsPath(invoice.id));
  t.like(list.body.data[0], { id: posted.body.id, status: 'failed', succeeded: false });
  t.is(world.events('dian_event.completed').filter((event) => event.data.invoice_id === invoice.id).length, 0);
  t.is(world.simulator.events(cufe).length, 1, 'DIAN still has only the earlier 030');
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
