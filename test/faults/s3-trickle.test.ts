import { createHash } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { loadConfig } from '../../config';
import { BlobStoreUnavailableError } from '../../storage/blob-store';
import { S3BlobStore } from '../../storage/s3-blob-store';
import { seedCompany, seedKey, startTestApi } from '../support/api';
import { paddedXml, upload, waitForImport } from '../support/ingestion';
import { startS3Server } from '../support/s3-server';
import { startTricklingLink } from '../support/slow-link';
import { startTestWorker } from '../support/worker';

// Fault suite on the S3 blob store: a store that answers one byte every 2 s (a real MinIO behind
// a relay on loopback). It never goes silent long enough for the S3 client's idle deadline
// (S3_IDLE_TIMEOUT_MS, 5 s here), so only the whole-call deadline (S3_OPERATION_TIMEOUT_MS,
// 3 s here) ends a call to it. Before 2026-11-25 there was none: every call below waited for ever.
const OPERATION_MS = 3_000;
/** The deadline, and room for a loaded machine; a call still pending then counts as held for ever. */
const BOUND_MS = OPERATION_MS + 3_000;
let s3: Awaited<ReturnType<typeof startS3Server>>;

test.before(async () => {
  s3 = await startS3Server();
  // The S3 client reads its credentials from the environment.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
});
test.after.always(async () => s3?.close());

function settings(endpoint: string, operationMs = OPERATION_MS) {
  const config = loadConfig({ ...process.env, ...s3.env, S3_ENDPOINT: endpoint, S3_OPERATION_TIMEOUT_MS: String(operationMs) });
  if (config.blobStore.driver !== 's3') throw new Error('expected the s3 driver');
  return config.blobStore;
}

/** How `call` ended, and after how long; 'held' if it had not ended within BOUND_MS. */
async function outcome(call: Promise<unknown>): Promise<{ ms: number; error?: unknown; held?: true }> {
  const started = Date.now();
  let bound: NodeJS.Timeout | undefined;
  const held = new Promise<{ held: true }>((resolve) => (bound = setTimeout(() => resolve({ held: true }), BOUND_MS)));
  const ended = call.then(
    () => ({}),
    (error: unknown) => ({ error }),
  );
  const result = await Promise.race([ended, held]);
  clearTimeout(bound);
  return { ms: Date.now() - started, ...result };
}

function assertCutOff(t: import('ava').ExecutionContext, what: string, result: Awaited<ReturnType<typeof outcome>>) {
  t.log(`${what}: ${result.held ? `still waiting after ${result.ms} ms` : `ended after ${result.ms} ms: ${(result.error as Error | undefined)?.message}`}`);
  t.falsy(result.held, `${what} was not held past ${BOUND_MS} ms`);
  t.true(result.error instanceof BlobStoreUnavailableError, `${what} failed as the store being unavailable`);
  t.regex((result.error as Error).message, /did not finish within 300\d ms/);
  t.true(result.ms >= OPERATION_MS - 100, `${what} was given its deadline (${result.ms} ms)`);
}

test.serial('a store that trickles its answers: a write, a read and a look-up end by the whole-call deadline as unavailable; once it stops, all work', async (t) => {
  t.timeout(60_000);
  const link = await startTricklingLink(s3.endpoint);
  try {
    const blobs = new S3BlobStore(settings(link.url));
    const bytes = Buffer.from('<Invoice>trickle</Invoice>');
    await blobs.put('companies/1/uploads/trickle.xml', bytes, 'application/xml');

    link.trickle(true);
    assertCutOff(t, 'a write', await outcome(blobs.put('companies/1/uploads/trickled.xml', bytes, 'application/xml')));
    assertCutOff(t, 'a read', await outcome(blobs.get('companies/1/uploads/trickle.xml')));
    assertCutOff(t, 'a look-up', await outcome(blobs.exists('companies/1/uploads/trickle.xml')));

    link.trickle(false);
    await blobs.put('companies/1/uploads/trickled.xml', bytes, 'application/xml');
    t.deepEqual(await blobs.get('companies/1/uploads/trickled.xml'), bytes);
    t.true(await blobs.exists('companies/1/uploads/trickle.xml'));
  } finally {
    await link.close();
  }
});

test.serial('a call waiting for one of the S3 client\'s sockets, all held by a trickling store, ends by its deadline too', async (t) => {
  t.timeout(60_000);
  const link = await startTricklingLink(s3.endpoint);
  // Two sockets (the SDK's default is 50), so that two hung reads hold them all.
  const client = new S3Client({ region: 'us-east-1', endpoint: link.url, forcePathStyle: true, requestHandler: { httpAgent: { maxSockets: 2 } } });
  try {
    // The holders' deadline outlasts the test; the queued call's is the usual 3 s. Both share the client's sockets.
    const holders = new S3BlobStore(settings(link.url, 60_000), client);
    const queued = new S3BlobStore(settings(link.url), client);
    await holders.put('companies/1/uploads/held.xml', Buffer.from('<Invoice>held</Invoice>'), 'application/xml');

    link.trickle(true);
    const held = [holders.get('companies/1/uploads/held.xml'), holders.get('companies/1/uploads/held.xml')];
    let holdersEnded = false;
    void Promise.allSettled(held).then(() => (holdersEnded = true));
    await new Promise((resolve) => setTimeout(resolve, 300)); // the two reads take both sockets
    const result = await outcome(queued.exists('companies/1/uploads/held.xml'));
    assertCutOff(t, 'a call queued for a socket', result);
    t.false(holdersEnded, 'the sockets were still held all along');

    link.trickle(false);
    const answers = await Promise.all(held);
    t.is(answers.length, 2, 'the held reads finish once the store answers');
    t.true(await queued.exists('companies/1/uploads/held.xml'), 'and the sockets serve again');
  } finally {
    client.destroy();
    await link.close();
  }
});

test.serial('the API on a trickling store: an upload is 503 with Retry-After within the bound; once it stops, the upload is accepted and imported', async (t) => {
  t.timeout(120_000);
  const link = await startTricklingLink(s3.endpoint);
  const api = await startTestApi({ ...s3.env, S3_ENDPOINT: link.url, S3_OPERATION_TIMEOUT_MS: String(OPERATION_MS) });
  const worker = await startTestWorker(api.database, api.config);
  try {
    const company = await seedCompany(api.database, 'Goteo S.A.S.', '900108281');
    const { key } = await seedKey(api.database, { scopes: ['documents:write', 'documents:read'], role: 'admin' });
    const invoice = (name: string, bytes?: number) => {
      const xml = demoInvoiceXml(name, createHash('sha384').update(name).digest('hex'), '800197268', '900108281');
      return { name: `${name}.xml`, bytes: bytes ? paddedXml(xml, bytes) : xml };
    };

    link.trickle(true);
    const started = Date.now();
    const refused = await upload(api.url, key, company.id, invoice('FE-GOTEO-1'), { idempotencyKey: 'goteo-1' });
    const ms = Date.now() - started;
    t.log(`upload to a trickling store: ${refused.status} after ${ms} ms`);
    t.is(refused.status, 503);
    t.is(refused.body.error?.code, 'service_unavailable');
    t.regex(refused.body.error?.message ?? '', /file store/);
    t.is(refused.headers.get('retry-after'), '5');
    t.true(ms < BOUND_MS, `answered within ${BOUND_MS} ms (${ms} ms)`);

    link.trickle(false);
    const accepted = await upload(api.url, key, company.id, invoice('FE-GOTEO-1'), { idempotencyKey: 'goteo-1' });
    t.is(accepted.status, 202);
    t.is((await waitForImport(api.url, key, company.id, accepted.body.id as number)).status, 'DONE');

    // An import whose read of the blob (over 512 KiB: an activity reads it) meets the trickle is
    // retried as a dependency fault, and ends imported once the store answers again.
    const large = await upload(api.url, key, company.id, invoice('FE-GOTEO-2', 600 * 1024), { idempotencyKey: 'goteo-2' });
    t.is(large.status, 202);
    link.trickle(true);
    await new Promise((resolve) => setTimeout(resolve, 2 * OPERATION_MS));
    link.trickle(false);
    t.is((await waitForImport(api.url, key, company.id, large.body.id as number)).status, 'DONE');
    console.log(`[faults] trickling store: accepted 2 / completed 2 / lost 0 (503 service_unavailable answers: 1, in ${ms} ms)`);
  } finally {
    link.trickle(false);
    await worker.stop();
    await api.close();
    await link.close();
  }
});
