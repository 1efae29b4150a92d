import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { rm, truncate } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { loadConfig, type AppConfig } from '../../config';
import { acceptFile } from '../../services/accept-file';
import { startImport } from '../../services/start-import';
import type { BlobStore } from '../../storage/blob-store';
import type { FilesystemBlobStore } from '../../storage/filesystem-blob-store';
import { buildActivityDependencies } from '../../worker/start-worker';
import { workflowIdsFor } from '../../workflows/messages';
import { seedCompany } from '../support/api';
import { createTestDatabase, type TestDatabase } from '../support/database';
import { paddedXml } from '../support/ingestion';
import { createTimeSkippingEnvironment } from '../support/time-skipping';
import { serviceWorkflows } from '../support/workflow-bundle';

// An import whose dependency is down for longer than the import's former 6 attempts (about a
// minute: 2 s doubling) is retried until the dependency is back and ends DONE; a failure of its
// own still ends it after 6 attempts, as ERROR import_failed with its event, on both the inline
// (local activity) and the activity-task path; a stored file gone or truncated ends it at once.
// The time-skipping server skips the backoffs.

let env: TestWorkflowEnvironment;
let database: TestDatabase;
let config: AppConfig;
let worker: Worker;
let running: Promise<void>;
let realStore: BlobStore;
let companyId: number;
/** Per blob key: how the next reads of it fail (`left` of them), and how many reads were made. */
const faults = new Map<string, { left: number; error: () => Error; reads: number }>();

/** The S3 client's own error when the object store refuses connections (what the store saw before it classified errors). */
const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:19000'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect' });

test.before(async () => {
  env = await createTimeSkippingEnvironment();
  database = await createTestDatabase();
  const taskQueue = `import-retries-${randomUUID()}`;
  config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    SECRETS_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    TEMPORAL_TASK_QUEUE: taskQueue,
    BLOB_DIR: path.join(os.tmpdir(), `invoicing-import-retries-${randomUUID()}`),
  });
  const deps = buildActivityDependencies(config, database.db, env.client);
  realStore = deps.blobStore;
  const flaky: BlobStore = {
    driver: realStore.driver,
    put: (key, data, type) => realStore.put(key, data, type),
    putFile: (key, file, type) => realStore.putFile(key, file, type),
    exists: (key) => realStore.exists(key),
    delete: (key) => realStore.delete(key),
    signedDownloadUrl: (key, options) => realStore.signedDownloadUrl(key, options),
    check: (timeoutMs) => realStore.check(timeoutMs),
    async get(key) {
      const fault = faults.get(key);
      if (fault) {
        fault.reads += 1;
        if (fault.left > 0) {
          fault.left -= 1;
          throw fault.error();
        }
      }
      return realStore.get(key);
    },
  };
  worker = await Worker.create({ connection: env.nativeConnection, taskQueue, ...serviceWorkflows(), activities: createActivities({ ...deps, blobStore: flaky }) });
  running = worker.run();
  companyId = (await seedCompany(database, 'Reintentos S.A.S.', '900108281')).id;
});
test.after.always(async () => {
  worker?.shutdown();
  await running;
  await env?.teardown();
  await database?.drop();
  await rm(config.blobStore.driver === 'filesystem' ? config.blobStore.directory : '', { recursive: true, force: true });
});

/** A stored upload (no import yet) of an invoice, `bytes` large. */
async function stored(label: string, bytes: number) {
  const cufe = createHash('sha384').update(label).digest('hex');
  const xml = demoInvoiceXml(`FE-${label}`, cufe, '800197268', '900108281');
  const { file } = await acceptFile(
    { repositories: database.repositories, blobStore: realStore, temporal: { client: env.client, taskQueue: config.temporal.taskQueue } },
    { companyId, type: 'API', fileName: `FE-${label}.xml`, bytes: bytes > xml.length ? paddedXml(xml, bytes) : xml, startImport: false },
  );
  return file;
}

/** Imports the file as an upload does and waits for the workflow; its result and the file's row after it. */
async function importOf(file: { id: number; size: number | string }) {
  const taskQueue = config.temporal.taskQueue;
  await startImport({ temporal: { client: env.client, taskQueue } }, { fileId: file.id, companyId, sizeBytes: Number(file.size) });
  const result = await env.client.workflow.getHandle(workflowIdsFor(taskQueue).importFile(file.id)).result();
  const row = await database.db('uploaded_files').where({ id: file.id }).first('status', 'error_code');
  const events = await database.db('events').where({ company_id: companyId }).where('type', 'like', 'document.%').whereRaw(`data->>'id' = ?`, [String(file.id)]).pluck('type');
  return { result, row, events };
}

for (const [lane, bytes] of [['inline (a local activity)', 2_000], ['activity task (over 512 KiB)', 600 * 1024]] as const) {
  test.serial(`${lane}: the blob store refusing connections for 12 attempts, then back: the import ends DONE`, async (t) => {
    t.timeout(60_000);
    const file = await stored(`down-${bytes}`, bytes);
    faults.set(file.blob_key, { left: 12, error: refused, reads: 0 });
    const { result, row, events } = await importOf(file);
    // Before 2026-11-25: ERROR import_failed after 6 attempts (activity task), or a failed workflow
    // with the upload left PROCESSING (inline).
    t.deepEqual(result, { status: 'DONE' });
    t.is(row.status, 'DONE');
    t.is(faults.get(file.blob_key)!.reads, 13);
    t.deepEqual(events, ['document.imported']);
  });

  test.serial(`${lane}: a failure of its own ends the import after 6 attempts as ERROR import_failed, with its event`, async (t) => {
    t.timeout(60_000);
    const file = await stored(`bug-${bytes}`, bytes);
    faults.set(file.blob_key, { left: 1_000, error: () => new TypeError("Cannot read properties of undefined (reading 'x')"), reads: 0 });
    const { result, row, events } = await importOf(file);
    t.deepEqual(result, { status: 'ERROR' });
    t.like(row, { status: 'ERROR', error_code: 'import_failed' });
    t.is(faults.get(file.blob_key)!.reads, 6);
    t.deepEqual(events, ['document.import_failed']);
  });
}

test.serial('a stored file deleted or truncated under a pending upload: ERROR file_missing / file_corrupted at once, not retried', async (t) => {
  t.timeout(60_000);
  const store = realStore as FilesystemBlobStore;
  const gone = await stored('gone', 2_000);
  await rm(store.pathOf(gone.blob_key));
  const cut = await stored('cut', 2_000);
  await truncate(store.pathOf(cut.blob_key), 1_000);
  for (const [file, code] of [[gone, 'file_missing'], [cut, 'file_corrupted']] as const) {
    faults.set(file.blob_key, { left: 0, error: refused, reads: 0 });
    const { result, row, events } = await importOf(file);
    // Before: file_missing was retried as a fault and ended import_failed; a truncated XML ended malformed_xml.
    t.deepEqual(result, { status: 'ERROR' }, code);
    t.like(row, { status: 'ERROR', error_code: code });
    t.is(faults.get(file.blob_key)!.reads, 1, `${code}: one attempt`);
    t.deepEqual(events, ['document.import_failed']);
  }
});
