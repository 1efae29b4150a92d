import test from 'ava';
import { startMetricsServer, type MetricsServer } from '../../config/metrics';
import { startFakeErp, type FakeErp } from '../../testing/fake-accounting/generic-erp';
import { startDianWorld, type DianWorld } from '../support/dian-world';
import { eventually } from '../support/eventually';
import { fixture, upload, waitForImport } from '../support/ingestion';
import { moved, sampleSum, scrape, type Family } from '../support/prometheus';

// The domain counters move with real traffic, on the dev server with the real worker in this
// process (one prom-client registry, scraped on its own port): an upload and its import, the
// document.imported webhook to a loopback receiver, a DIAN event and an import run against the
// simulator, an export to a loopback ERP. Each outcome counts once.
let world: DianWorld;
let erp: FakeErp;
let metrics: MetricsServer;

test.before(async () => {
  world = await startDianWorld();
  erp = await startFakeErp();
  metrics = (await startMetricsServer({ port: 0, host: '127.0.0.1', listenPort: 0 }))!;
});
test.after.always(async () => {
  await metrics?.close();
  await world?.close();
  await erp?.close();
});

const ISSUER = { id_type: '13', id_number: '1020304050', first_name: 'Ana', family_name: 'Pérez', job_title: 'Contadora' };

async function settled(probe: (families: Family[]) => boolean): Promise<Family[]> {
  return eventually(async () => {
    const families = await scrape(metrics.url);
    return probe(families) ? families : undefined;
  }, 90_000);
}

test.serial('uploads, imports, CPU pool jobs and webhook deliveries with their latency', async (t) => {
  const before = await scrape(metrics.url);
  const accepted = await upload(world.api.url, world.key, world.company.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  t.is(accepted.status, 202, JSON.stringify(accepted.body));
  const file = await waitForImport(world.api.url, world.key, world.company.id, accepted.body.id);
  t.is(file.status, 'DONE');
  // XML that is not an invoice: accepted, then its import fails; an empty file is refused.
  const notAnInvoice = await upload(world.api.url, world.key, world.company.id, { name: 'note.xml', bytes: Buffer.from('<note>hola</note>') });
  t.is((await waitForImport(world.api.url, world.key, world.company.id, notAnInvoice.body.id)).status, 'ERROR');
  t.is((await upload(world.api.url, world.key, world.company.id, { name: 'empty.xml', bytes: Buffer.alloc(0) })).status, 400);

  // document.imported (and contact.created) reach the receiver; the attempt is recorded just after the 2xx.
  await eventually(() => (world.events('document.imported').length > 0 ? true : undefined));
  const after = await settled((families) => moved(before, families, 'invoicing_webhook_deliveries_total', { outcome: 'delivered' }) >= 1);

  t.is(moved(before, after, 'invoicing_uploads_total', { type: 'api', outcome: 'accepted' }), 2);
  t.is(moved(before, after, 'invoicing_uploads_total', { type: 'api', outcome: 'rejected' }), 1);
  t.is(moved(before, after, 'invoicing_imports_total', { type: 'api', outcome: 'imported' }), 1);
  t.is(moved(before, after, 'invoicing_imports_total', { type: 'api', outcome: 'failed' }), 1);
  t.is(moved(before, after, 'invoicing_cpu_pool_jobs_total', { job: 'planImportJob', outcome: 'completed' }), 2);
  t.true(moved(before, after, 'invoicing_webhook_delivery_attempts_total', { outcome: 'succeeded' }) >= 1);
  t.is(moved(before, after, 'invoicing_webhook_deliveries_total', { outcome: 'failed' }), 0);
  // One latency observation per delivered delivery, no more (a retried activity would not add one).
  const delivered = moved(before, after, 'invoicing_webhook_deliveries_total', { outcome: 'delivered' });
  t.is(moved(before, after, 'invoicing_webhook_delivery_latency_seconds'), delivered);
  const latency = after.find((family) => family.name === 'invoicing_webhook_delivery_latency_seconds')!;
  t.is(latency.type, 'HISTOGRAM');
  t.true(Number(latency.metrics[0].sum) > 0);
  // No company, file or endpoint id is ever a label.
  const labelValues = after.flatMap((family) => family.metrics.flatMap((m) => Object.values(m.labels ?? {})));
  t.false(labelValues.includes(String(world.company.id)) && labelValues.includes(String(file.id)));
  t.true(after.some((family) => family.name === 'invoicing_db_pool_connections'));
  t.true(sampleSum(after, 'invoicing_db_pool_connections', { state: 'free' }) + sampleSum(after, 'invoicing_db_pool_connections', { state: 'used' }) >= 1);
});

test.serial('a DIAN event sent to the simulator, a DIAN import run and an export to a loopback ERP', async (t) => {
  const accepted = await upload(world.api.url, world.key, world.company.id, { name: 'creditnote-usd.xml', bytes: fixture('creditnote-usd.xml') });
  await waitForImport(world.api.url, world.key, world.company.id, accepted.body.id);
  const files = await world.call('GET', `/v1/companies/${world.company.id}/files?limit=10`);
  const invoice = files.body.data.flatMap((file: { documents: { id: number; document_type: string }[] }) => file.documents).find((d: { document_type: string }) => d.document_type === 'electronic_invoice');
  t.truthy(invoice, 'the first test imported the invoice');
  const before = await scrape(metrics.url);

  const event = await world.call('POST', `/v1/companies/${world.company.id}/invoices/${invoice.id}/dian-events`, { event: '030', issuer: ISSUER });
  t.is(event.status, 202, JSON.stringify(event.body));
  const run = await world.call('POST', `/v1/companies/${world.company.id}/dian-imports`, { begin_date: '2019-01-01', end_date: '2024-12-31', document_type: 'all' });
  t.is(run.status, 202, JSON.stringify(run.body));
  const integration = await world.call('POST', `/v1/companies/${world.company.id}/integrations`, {
    name: 'erp', provider: 'generic_http', credentials: { secret: erp.state.secret }, settings: { url: erp.url },
  });
  t.is(integration.status, 201, JSON.stringify(integration.body));
  const exported = await world.call('POST', `/v1/companies/${world.company.id}/invoices/${invoice.id}/export`, { integration: 'erp' });
  t.is(exported.status, 202, JSON.stringify(exported.body));

  const after = await settled(
    (families) =>
      moved(before, families, 'invoicing_dian_events_total') >= 1 &&
      moved(before, families, 'invoicing_dian_import_runs_total') >= 1 &&
      moved(before, families, 'invoicing_exports_total') >= 1,
  );
  t.is(moved(before, after, 'invoicing_dian_events_total', { event_code: '030', outcome: 'succeeded' }), 1);
  t.is(moved(before, after, 'invoicing_dian_import_runs_total', { source: 'dian_web_service', outcome: 'done' }), 1);
  const runRecord = (await world.call('GET', `/v1/companies/${world.company.id}/dian-imports/${run.body.id}`)).body;
  t.is(runRecord.status, 'DONE');
  t.is(moved(before, after, 'invoicing_dian_import_documents_total', { outcome: 'skipped' }), runRecord.skipped_count);
  t.is(moved(before, after, 'invoicing_dian_import_documents_total', { outcome: 'electronic_invoice' }), runRecord.electronic_invoices_count);
  t.is(moved(before, after, 'invoicing_dian_import_documents_total', { outcome: 'credit_note' }), runRecord.credit_notes_count);
  t.is(moved(before, after, 'invoicing_exports_total', { target: 'generic_http', outcome: 'succeeded' }), 1);
  t.is(erp.state.documents.size, 1);
});
