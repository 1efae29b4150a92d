import { createHash } from 'node:crypto';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { paddedXml, upload } from '../support/ingestion';
import { startS3Server } from '../support/s3-server';
import { startTestWorker, type TestWorker } from '../support/worker';
import { waitUntil } from '../support/npm-start';

// Fault suite on the S3 blob store: a real MinIO process killed with -9, and frozen with SIGSTOP,
// in the middle of a burst of uploads (4 clients, each retrying a refused upload with its
// Idempotency-Key after Retry-After, as the API asks), with the real API and worker. Every answer
// is 202, or 503 service_unavailable naming the file store, with Retry-After; every upload
// answered 202 ends imported; nothing is kept of a refused one: accepted / completed / lost, lost = 0.
const UPLOADS = 40;
const CLIENTS = 4;
/** The S3 client's deadlines here (small, so the test is short), and the freeze that outlasts them. */
const S3_DEADLINES = { S3_CONNECT_TIMEOUT_MS: '1000', S3_IDLE_TIMEOUT_MS: '1500' };
const FREEZE_MS = 15_000;
/** Three attempts (the SDK's default) of the idle deadline each, their backoff, and room for a loaded machine. */
const ANSWER_BOUND_MS = 8_000;
let s3: Awaited<ReturnType<typeof startS3Server>>;
let api: TestApi;
let worker: TestWorker;
let key: string;
let companyId: number;

test.before(async () => {
  s3 = await startS3Server();
  // The S3 client reads its credentials from the environment.
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
  api = await startTestApi({ ...s3.env, ...S3_DEADLINES });
  worker = await startTestWorker(api.database, api.config);
  companyId = (await seedCompany(api.database, 'Nube Caída S.A.S.', '900108281')).id;
  key = (await seedKey(api.database, { scopes: ['documents:write', 'documents:read'], role: 'admin' })).key;
});
test.after.always(async () => {
  await worker?.stop();
  await api?.close();
  await s3?.close();
});

type Tally = { accepted: Map<number, number>; unavailable: number; wrong: string[]; slowestMs: number };

/** UPLOADS uploads (every fourth over 512 KiB: an activity-task import) by CLIENTS clients; `fault` runs once a quarter is accepted. */
async function burst(label: string, fault: () => Promise<void>): Promise<Tally> {
  const tally: Tally = { accepted: new Map(), unavailable: 0, wrong: [], slowestMs: 0 };
  let next = 0;
  const client = async () => {
    for (let i = next++; i < UPLOADS; i = next++) {
      const cufe = createHash('sha384').update(`${label}-${i}`).digest('hex');
      const xml = demoInvoiceXml(`FE-${label}-${i}`, cufe, '800197268', '900108281');
      const file = { name: `FE-${label}-${i}.xml`, bytes: i % 4 === 0 ? paddedXml(xml, 600 * 1024) : xml };
      const deadline = Date.now() + 60_000;
      for (;;) {
        const started = Date.now();
        const answer = await upload(api.url, key, companyId, file, { idempotencyKey: `${label}-${i}` }).catch((error: Error) => ({ status: 0, headers: new Headers(), body: { error: { code: error.message } } }));
        tally.slowestMs = Math.max(tally.slowestMs, Date.now() - started);
        if (answer.status === 202) {
          tally.accepted.set(i, (answer.body as { id: number }).id);
          break;
        }
        const error = answer.body.error as { code?: string; message?: string } | undefined;
        if (answer.status === 503 && error?.code === 'service_unavailable' && /file store/.test(error.message ?? '') && answer.headers.get('retry-after') === '5') {
          tally.unavailable += 1;
        } else {
          tally.wrong.push(`${answer.status} ${JSON.stringify(answer.body)}`);
        }
        if (Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000)); // sooner than Retry-After: the test is bounded
      }
    }
  };
  const faulted = (async () => {
    await waitUntil(() => tally.accepted.size >= UPLOADS / 4, 30_000, 'a quarter of the burst');
    await fault();
  })();
  await Promise.all([...Array.from({ length: CLIENTS }, client), faulted]);
  return tally;
}

async function imported(tally: Tally): Promise<number> {
  const ids = [...tally.accepted.values()];
  const done = async () => Number((await api.database.db('uploaded_files').whereIn('id', ids).where('status', 'DONE').count<{ count: number }[]>('* as count'))[0].count);
  await waitUntil(async () => (await done()) === ids.length, 30_000, 'every accepted upload to be imported').catch(() => undefined);
  return done();
}

function report(t: { log(...values: unknown[]): void }, label: string, tally: Tally, done: number) {
  const line = `${label}: accepted ${tally.accepted.size} / completed ${done} / lost ${tally.accepted.size - done} (503 service_unavailable answers: ${tally.unavailable}; slowest answer ${tally.slowestMs} ms)`;
  t.log(line);
  console.log(`[faults] ${line}`);
}

test.serial('MinIO killed with -9 mid-burst: uploads are 503 naming the file store until it is back, nothing accepted is lost', async (t) => {
  t.timeout(90_000);
  const tally = await burst('s3kill', async () => {
    await s3.kill();
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    await s3.restart();
  });
  const done = await imported(tally);
  report(t, 'minio killed for 5 s', tally, done);
  // Before 2026-11-25 these were 503s saying "cannot reach its database" (the S3 client's ECONNREFUSED).
  t.deepEqual(tally.wrong, [], 'every answer was 202, or 503 service_unavailable naming the file store, with Retry-After');
  t.true(tally.unavailable > 0, 'uploads during the outage were refused');
  t.is(tally.accepted.size, UPLOADS);
  t.is(done, UPLOADS, 'lost = 0');
  // Nothing was kept of a refused attempt: one row per upload.
  const rows = await api.database.db('uploaded_files').where('idempotency_key', 'like', 's3kill-%').count<{ count: number }[]>('* as count');
  t.is(Number(rows[0].count), UPLOADS);
});

test.serial('MinIO frozen (SIGSTOP) longer than the S3 deadline mid-burst: uploads are 503 naming the file store within the bound, nothing accepted is lost', async (t) => {
  t.timeout(120_000);
  const tally = await burst('s3stop', async () => {
    process.kill(s3.pid(), 'SIGSTOP');
    await new Promise((resolve) => setTimeout(resolve, FREEZE_MS));
    process.kill(s3.pid(), 'SIGCONT');
  });
  const done = await imported(tally);
  report(t, `minio frozen for ${FREEZE_MS / 1000} s`, tally, done);
  // Before 2026-11-25 the S3 client had no deadline: every upload in flight waited the whole freeze (15.0 s) and none was refused.
  t.deepEqual(tally.wrong, [], 'every answer was 202, or 503 service_unavailable naming the file store, with Retry-After');
  t.true(tally.unavailable > 0, 'uploads during the freeze were refused, not held');
  t.true(tally.slowestMs < ANSWER_BOUND_MS, `no upload waited ${ANSWER_BOUND_MS} ms or more for the frozen store (slowest ${tally.slowestMs} ms)`);
  t.is(tally.accepted.size, UPLOADS);
  t.is(done, UPLOADS, 'lost = 0');
  const rows = await api.database.db('uploaded_files').where('idempotency_key', 'like', 's3stop-%').count<{ count: number }[]>('* as count');
  t.is(Number(rows[0].count), UPLOADS);
});
