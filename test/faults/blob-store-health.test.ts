import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { S3Client } from '@aws-sdk/client-s3';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { BlobStoreMisconfiguredError } from '../../storage/blob-store';
import { S3BlobStore } from '../../storage/s3-blob-store';
import { HEALTH_FAILURE_MESSAGES, type HealthFailureCode } from '../../api/health-failures';
import { capturingLogger, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { upload } from '../support/ingestion';
import { waitUntil } from '../support/npm-start';
import { startS3Server } from '../support/s3-server';

// GET /healthz and the blob store on real processes: a blob directory that cannot be reached, a
// real MinIO killed and frozen, a bucket that does not exist, credentials MinIO does not accept.
// /healthz turns 503 "degraded" with checks.blob_store's code, within its 2 s deadline; the error
// naming what is wrong (the bucket, the directory, the address) goes to the log only, once per
// change of state (it was in the unauthenticated answer before 2026-11-25); an upload's refusal
// names the misconfiguration where there is one.
type Health = { status: string; checks: Record<string, { status: string; latency_ms: number; error?: { code: string; message: string } }> };

let s3: Awaited<ReturnType<typeof startS3Server>>;

test.before(async () => {
  s3 = await startS3Server();
  // The S3 client reads its credentials from the environment.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
});
test.after.always(async () => s3?.close());

async function health(api: TestApi): Promise<{ status: number; body: Health; ms: number }> {
  const started = Date.now();
  const response = await fetch(`${api.url}/healthz`);
  return { status: response.status, body: (await response.json()) as Health, ms: Date.now() - started };
}

/** The answer gives the code and its fixed message, and none of `secrets` (bucket, directory, address). */
function assertGeneric(t: { is(a: unknown, b: unknown, m?: string): void; false(a: boolean, m?: string): void }, answer: { body: Health }, code: HealthFailureCode, secrets: string[]) {
  t.is(answer.body.checks.blob_store.status, 'unavailable');
  t.is(answer.body.checks.blob_store.error?.code, code);
  t.is(answer.body.checks.blob_store.error?.message, HEALTH_FAILURE_MESSAGES[code]);
  const text = JSON.stringify(answer.body);
  for (const secret of secrets) t.false(text.includes(secret), `the answer names ${secret}: ${text}`);
}

/** The blob store check's log lines (error: failed, info: ok again). */
const blobStoreLines = (lines: Record<string, any>[]) => lines.filter((line) => line.check === 'blob_store');

const report = (t: { log(...values: unknown[]): void }, line: string) => {
  t.log(line);
  console.log(`[faults] ${line}`);
};

test.serial('the blob directory cannot be reached (a file where a folder should be): /healthz 503 misconfigured, the directory in one log line however many probes; reachable again, 200', async (t) => {
  t.timeout(60_000);
  const parent = path.join(os.tmpdir(), `invoicing-health-${randomUUID()}`);
  await writeFile(parent, 'not a folder');
  const { logger, lines } = capturingLogger();
  const api = await startTestApi({ BLOB_DIR: path.join(parent, 'blobs') }, { logger });
  try {
    const broken = await health(api);
    report(t, `blob dir under a file: /healthz ${broken.status} ${JSON.stringify(broken.body.checks.blob_store)}`);
    t.is(broken.status, 503);
    t.is(broken.body.status, 'degraded');
    t.is(broken.body.checks.postgres.status, 'ok');
    assertGeneric(t, broken, 'misconfigured', [parent, 'ENOTDIR', 'BLOB_DIR', os.tmpdir()]);
    // A flood of probes while it fails: each runs the check (a failure is not reused), one log line.
    const flood = await Promise.all(Array.from({ length: 40 }, () => health(api)));
    t.true(flood.every((answer) => answer.status === 503));
    const failed = blobStoreLines(lines);
    t.is(failed.length, 1, JSON.stringify(failed));
    t.like(failed[0], { level: 50, check: 'blob_store', code: 'misconfigured' });
    t.regex(failed[0].msg, /is a file \(ENOTDIR\): check BLOB_DIR; could not write in .*blobs/);
    t.true(failed[0].msg.includes(parent), 'the log names the directory');
    await rm(parent);
    const fixed = await health(api);
    t.is(fixed.status, 200, JSON.stringify(fixed.body));
    t.is(fixed.body.checks.blob_store.status, 'ok');
    t.like(blobStoreLines(lines)[1], { level: 30, check: 'blob_store', msg: 'health check blob_store is ok again' });
  } finally {
    await api.close();
    await rm(parent, { recursive: true, force: true });
  }
});

test.serial('S3: a bucket that does not exist: /healthz 503 misconfigured, the bucket named in the log only; an upload is 503 and the log-worthy error names it too', async (t) => {
  t.timeout(60_000);
  const { logger, lines } = capturingLogger();
  const api = await startTestApi({ ...s3.env, S3_BUCKET: 'no-such-bucket' }, { logger });
  try {
    const answer = await health(api);
    report(t, `missing bucket: /healthz ${answer.status} ${JSON.stringify(answer.body.checks.blob_store)}`);
    t.is(answer.status, 503);
    assertGeneric(t, answer, 'misconfigured', ['no-such-bucket', 'NoSuchBucket', new URL(s3.endpoint).host, 'S3_BUCKET']);
    t.regex(blobStoreLines(lines)[0]?.msg ?? '', /bucket "no-such-bucket" does not exist/);
    const companyId = (await seedCompany(api.database, 'Sin Cubo S.A.S.', '900108281')).id;
    const { key } = await seedKey(api.database, { scopes: ['documents:write'], role: 'admin' });
    const refused = await upload(api.url, key, companyId, { name: 'FE-1.xml', bytes: demoInvoiceXml('FE-NB-1', 'a'.repeat(96), '800197268', '900108281') });
    t.is(refused.status, 503);
    t.is(refused.body.error?.code, 'service_unavailable');
    const stored = await api.dependencies.blobStore.put('probe/key.xml', Buffer.from('x'), 'application/xml').catch((error: unknown) => error);
    t.true(stored instanceof BlobStoreMisconfiguredError);
    t.regex((stored as Error).message, /bucket "no-such-bucket" does not exist.*NoSuchBucket, HTTP 404/);
  } finally {
    await api.close();
  }
});

test.serial('S3: credentials MinIO does not accept: the check and a write name the variable to correct', async (t) => {
  t.timeout(60_000);
  const settings = { bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, forcePathStyle: true, deadlines: { connectMs: 2_000, idleMs: 2_000, operationMs: 20_000, minBytesPerSecond: 128 * 1024 } };
  const storeWith = (accessKeyId: string, secretAccessKey: string) =>
    new S3BlobStore(settings, new S3Client({ ...settings, credentials: { accessKeyId, secretAccessKey } }));
  const cases = [
    { label: 'unknown access key', store: storeWith('nobody', 'whatever-secret'), expected: /AWS_ACCESS_KEY_ID \(bucket "invoicing"\)/ },
    { label: 'wrong secret', store: storeWith(s3.env.AWS_ACCESS_KEY_ID, 'wrong-secret-value'), expected: /AWS_SECRET_ACCESS_KEY \(bucket "invoicing"\)/ },
  ];
  for (const { label, store, expected } of cases) {
    const checked = await store.check(2_000).catch((error: unknown) => error);
    const written = await store.put('probe/key.xml', Buffer.from('x'), 'application/xml').catch((error: unknown) => error);
    report(t, `${label}: check "${(checked as Error).message}"; write "${(written as Error).message}"`);
    t.true(checked instanceof BlobStoreMisconfiguredError, label);
    // HeadBucket's 403 has no body to say which: it reads as access denied to the bucket.
    t.regex((checked as Error).message, /Access denied to bucket "invoicing".*\(HTTP 403\)/, label);
    t.true(written instanceof BlobStoreMisconfiguredError, label);
    t.regex((written as Error).message, expected, label);
  }
});

test.serial('S3: MinIO killed, then frozen: /healthz 503 unreachable, then timeout within its 2 s deadline, the address in the log only; back, 200', async (t) => {
  t.timeout(90_000);
  const { logger, lines } = capturingLogger();
  const api = await startTestApi(s3.env, { logger });
  const host = new URL(s3.endpoint).host;
  try {
    const before = await health(api);
    t.is(before.status, 200, JSON.stringify(before.body));
    t.is(before.body.checks.blob_store.status, 'ok');

    await s3.kill();
    // An ok result answers for 5 s (the check needs no key).
    let killed = await health(api);
    await waitUntil(async () => (killed = await health(api)).status === 503, 10_000, '/healthz to see MinIO gone');
    report(t, `minio killed: /healthz ${killed.status} in ${killed.ms} ms ${JSON.stringify(killed.body.checks.blob_store)}`);
    assertGeneric(t, killed, 'unreachable', [host, 'ECONNREFUSED', s3.bucket]);
    t.regex(blobStoreLines(lines).at(-1)?.msg ?? '', /cannot be used right now \(ECONNREFUSED/);
    await s3.restart();
    await waitUntil(async () => (await health(api)).status === 200, 10_000, '/healthz ok again');

    await new Promise((resolve) => setTimeout(resolve, 5_100)); // past the ok result's 5 s
    process.kill(s3.pid(), 'SIGSTOP');
    try {
      const frozen = await health(api);
      report(t, `minio frozen: /healthz ${frozen.status} in ${frozen.ms} ms ${JSON.stringify(frozen.body.checks.blob_store)}`);
      t.is(frozen.status, 503);
      assertGeneric(t, frozen, 'timeout', [host, s3.bucket]);
      // The deadline stays in the log, not in the answer's error (latency_ms may well read 2000).
      t.false(JSON.stringify(frozen.body.checks.blob_store.error).includes('2000'), JSON.stringify(frozen.body.checks.blob_store.error));
      t.regex(blobStoreLines(lines).at(-1)?.msg ?? '', /did not answer within 2000 ms; could not reach bucket "invoicing"/);
      t.true(frozen.ms < 3_000, `answered in ${frozen.ms} ms`);
    } finally {
      process.kill(s3.pid(), 'SIGCONT');
    }
    await waitUntil(async () => (await health(api)).status === 200, 10_000, '/healthz ok after the freeze');
    t.pass();
  } finally {
    await api.close();
  }
});
