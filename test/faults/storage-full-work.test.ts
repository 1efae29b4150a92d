import { readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { workflowIdsFor } from '../../workflows/messages';
import { TEMPORARY_FOLDER } from '../../storage/filesystem-blob-store';
import { bearer } from '../support/api';
import { startDianWorld, type DianWorld } from '../support/dian-world';
import { eventually } from '../support/eventually';
import { fixture, upload, waitForImport } from '../support/ingestion';
import { fillTheDisk, mountSmallFilesystem } from '../support/small-filesystem';

// The blob directory on a 2 MB tmpfs, filled up while work that writes to it is under way: an
// idempotent upload, an on-demand PDF and a DIAN event (whose signed XML and DIAN's answer are
// stored). Each request is answered 507 insufficient_storage, nothing half-written is kept or
// referenced, the API and the worker keep running, and once space is freed the same upload
// (same Idempotency-Key) is accepted once, the PDF is produced and the event is sent once.
// Exports write nothing to the blob store (docs/operations.md, Faults). Needs `mount` (root).
const disk = mountSmallFilesystem('storage-full-work', '2m');
const faultTest = disk ? test : test.skip;
const BLOB_DIR = disk?.directory ?? '';
const FILLER = path.join(BLOB_DIR, 'filler');
let world: DianWorld;
test.before(async () => {
  if (disk) world = await startDianWorld({ env: { BLOB_DIR } });
});
test.after.always(async () => {
  await world?.close();
  disk?.unmount();
});

const temporaryFiles = () => readdirSync(path.join(BLOB_DIR, TEMPORARY_FOLDER), { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);

/** Every blob key Postgres records, with the size it records when it does. */
async function recordedBlobs(): Promise<{ key: string; size: number | null }[]> {
  const db = world.api.database.db;
  const files = await db('uploaded_files').select('blob_key as key', 'size');
  const originals = await db('documents').whereNotNull('original_blob_key').select('original_blob_key as key', 'original_size as size');
  const pdfs = await db('documents').whereNotNull('pdf_blob_key').select('pdf_blob_key as key');
  const events = await db('dian_events').select('signed_xml_blob_key', 'dian_response_blob_key');
  return [
    ...[...files, ...originals].map((row) => ({ key: String(row.key), size: row.size === null ? null : Number(row.size) })),
    ...pdfs.map((row) => ({ key: String(row.key), size: null })),
    ...events.flatMap((row) => [row.signed_xml_blob_key, row.dian_response_blob_key]).filter(Boolean).map((key) => ({ key: String(key), size: null })),
  ];
}

faultTest('a full blob disk mid-work: 507 insufficient_storage with nothing half-written or referenced; freed, the same upload, PDF and DIAN event complete once', async (t) => {
  t.timeout(180_000);
  const { api, company, key } = world;
  const imported = await upload(api.url, key, company.id, { name: 'invoice-signed-setp.xml', bytes: fixture('invoice-signed-setp.xml') });
  const file = await waitForImport(api.url, key, company.id, imported.body.id as number);
  const invoice = file.documents[0] as { id: number; cufe: string };
  const invoicePath = `/v1/companies/${company.id}/invoices/${invoice.id}`;
  const get = (pathname: string) => fetch(`${api.url}${pathname}`, { headers: bearer(key), redirect: 'manual' });

  await fillTheDisk(FILLER);

  // An upload: 507 with a code and a message, no row, no temporary file left behind.
  const second = { name: 'creditnote-usd.xml', bytes: fixture('creditnote-usd.xml') };
  const rowsBefore = (await api.database.db('uploaded_files').select('id')).length;
  const refused = await upload(api.url, key, company.id, second, { idempotencyKey: 'full-disk-upload' });
  t.is(refused.status, 507, JSON.stringify(refused.body));
  t.is(refused.body.error?.code, 'insufficient_storage');
  t.regex(refused.body.error?.message ?? '', /full/);
  t.is((await api.database.db('uploaded_files').select('id')).length, rowsBefore, 'no row for the refused upload');

  // The on-demand PDF cannot be stored: 507, and the document does not point at a PDF.
  const pdf = await get(`${invoicePath}/pdf`);
  t.is(pdf.status, 507);
  t.like(await pdf.json(), { error: { code: 'insufficient_storage' } });
  t.is((await api.database.db('documents').where({ id: invoice.id }).first('pdf_blob_key')).pdf_blob_key, null);

  // What is stored is still served whole.
  const original = await get(`${invoicePath}/original`);
  t.is(original.status, 302);
  const originalBytes = await fetch(original.headers.get('location')!);
  t.is(originalBytes.status, 200);
  t.is((await originalBytes.arrayBuffer()).byteLength, fixture('invoice-signed-setp.xml').length);

  // A DIAN event is accepted (the API writes only Postgres); its attempt cannot store the signed
  // XML, so nothing is sent to DIAN and the event waits, pending, for its next attempt.
  const event = await world.call('POST', `${invoicePath}/dian-events`, { event: '030', issuer: { id_type: '13', id_number: '1020304050', first_name: 'Ana', family_name: 'Pérez', job_title: 'Contadora', department: 'Finanzas' } });
  t.is(event.status, 202, JSON.stringify(event.body));
  const eventWorkflow = api.temporal.client.workflow.getHandle(workflowIdsFor(world.worker.taskQueue).dianEvent(event.body.id as number));
  const failedAttempt = await eventually(async () => {
    const pending = (await eventWorkflow.describe()).raw.pendingActivities?.[0];
    return pending?.lastFailure?.message ? pending.lastFailure.message : undefined;
  }, 30_000);
  t.regex(failedAttempt, /file store is full/);
  t.is(world.simulator.events(invoice.cufe).length, 0, 'nothing sent to DIAN without its signed XML kept');
  t.like(await api.database.db('dian_events').where({ id: event.body.id }).first(), { status: 'pending', signed_xml_blob_key: null });

  // The service stays up and says why it is degraded.
  const health = await fetch(`${api.url}/healthz`);
  t.is(health.status, 503);
  t.regex(JSON.stringify(await health.json()), /storage_full/);
  t.deepEqual(temporaryFiles(), [], 'no temporary file left by a failed write');
  for (const blob of await recordedBlobs()) {
    const stored = statSync(path.join(BLOB_DIR, ...blob.key.split('/')), { throwIfNoEntry: false });
    t.truthy(stored, `recorded blob ${blob.key} exists while the disk is full`);
  }

  // Space freed: the same upload (same key) is accepted, once; the PDF is produced; the event is sent once.
  rmSync(FILLER);
  const accepted = await upload(api.url, key, company.id, second, { idempotencyKey: 'full-disk-upload' });
  t.is(accepted.status, 202, JSON.stringify(accepted.body));
  const replayed = await upload(api.url, key, company.id, second, { idempotencyKey: 'full-disk-upload' });
  t.is(replayed.body.id, accepted.body.id, 'the retry is the same upload');
  t.is((await waitForImport(api.url, key, company.id, accepted.body.id as number)).status, 'DONE');
  t.is((await api.database.db('uploaded_files').where({ file_name: second.name })).length, 1, 'stored once');
  const producedPdf = await get(`${invoicePath}/pdf`);
  t.is(producedPdf.status, 302);
  const pdfBytes = await fetch(producedPdf.headers.get('location')!);
  t.is(pdfBytes.status, 200);
  t.is(Buffer.from(await pdfBytes.arrayBuffer()).subarray(0, 5).toString(), '%PDF-');
  const sent = await eventually(async () => {
    const row = await api.database.db('dian_events').where({ id: event.body.id }).first();
    return row.status === 'pending' ? undefined : row;
  }, 60_000);
  t.like(sent, { status: 'succeeded' });
  t.deepEqual(world.simulator.events(invoice.cufe).map((sentEvent) => sentEvent.code), ['030'], 'sent once');

  // Nothing recorded points at a missing or short blob; no temporary file is left.
  for (const blob of await recordedBlobs()) {
    const stored = statSync(path.join(BLOB_DIR, ...blob.key.split('/')), { throwIfNoEntry: false });
    t.truthy(stored, `recorded blob ${blob.key} exists`);
    if (blob.size !== null) t.is(stored?.size, blob.size, `recorded blob ${blob.key} is whole`);
  }
  t.deepEqual(temporaryFiles(), []);
});
