import { createHash } from 'node:crypto';
import net from 'node:net';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { connectDatabase, type Database } from '../../db/connection';
import { isAlive } from '../../scripts/embedded/run-record';
import { startDeduplicatingErp } from '../support/deduplicating-erp';
import { upload } from '../support/ingestion';
import { launchNpmStart, npmStartEnvironment, postgresPid, reapNpmStart, waitUntil, type NpmStart, type StartEnvironment } from '../support/npm-start';

// Fault suite on a real `npm start` (supervisor, api/worker/intake processes, embedded Postgres,
// SQLite-backed Temporal dev server): a burst of uploads, a dependency taken away mid-burst.
// A client that gets 503 waits Retry-After and retries with the same Idempotency-Key, as the
// API asks. Every upload answered 202 must end imported: accepted / completed / lost, lost = 0.
const UPLOADS = 100;
const CLIENTS = 4;
let environment: StartEnvironment;
let start: NpmStart;
let key: string;
let companyId: number;
let db: Database;

test.before(async () => {
  environment = await npmStartEnvironment();
  start = await launchNpmStart(environment);
  key = start.demoKey!;
  companyId = 1; // the demo company of a fresh DATA_DIR
  db = connectDatabase(`postgres://postgres:postgres@127.0.0.1:${environment.env.EMBEDDED_POSTGRES_PORT}/invoicing`, 2);
});
test.after.always(async () => {
  await db?.destroy();
  if (environment) await reapNpmStart(environment.dataDir);
});

type Tally = { accepted: Map<number, number>; unavailable: number; wrong: string[] };

/** UPLOADS uploads by CLIENTS concurrent clients; `fault` runs once a quarter is accepted. */
async function burst(label: string, fault: () => Promise<void>): Promise<Tally> {
  const tally: Tally = { accepted: new Map(), unavailable: 0, wrong: [] };
  let next = 0;
  const client = async () => {
    for (let i = next++; i < UPLOADS; i = next++) {
      const cufe = createHash('sha384').update(`${label}-${i}`).digest('hex');
      const file = { name: `FE-${label}-${i}.xml`, bytes: demoInvoiceXml(`FE-${label}-${i}`, cufe, '800197268', '900108281') };
      const deadline = Date.now() + 120_000;
      for (;;) {
        const answer = await upload(environment.apiUrl, key, companyId, file, { idempotencyKey: `${label}-${i}` }).catch((error: Error) => ({ status: 0, headers: new Headers(), body: { error: { code: error.message } } }));
        if (answer.status === 202) {
          tally.accepted.set(i, (answer.body as { id: number }).id);
          break;
        }
        if (answer.status === 503 && answer.body.error?.code === 'service_unavailable' && answer.headers.get('retry-after') === '5') {
          tally.unavailable += 1;
        } else {
          tally.wrong.push(`${answer.status} ${JSON.stringify(answer.body)}`);
        }
        if (Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 5_000)); // Retry-After
      }
    }
  };
  const faulted = (async () => {
    await waitUntil(() => tally.accepted.size >= UPLOADS / 4, 120_000, 'a quarter of the burst');
    await fault();
  })();
  await Promise.all([...Array.from({ length: CLIENTS }, client), faulted]);
  return tally;
}

/** Waits until every accepted upload has finished importing; returns how many ended DONE. */
async function completed(label: string, tally: Tally): Promise<number> {
  const ids = [...tally.accepted.values()];
  const finished = async () => {
    const rows = await db('uploaded_files').whereIn('id', ids).whereIn('status', ['DONE', 'ERROR']).count<{ count: number }[]>('* as count');
    return Number(rows[0].count) === ids.length;
  };
  await waitUntil(finished, 150_000, `the imports of ${label}`).catch(() => undefined);
  const done = await db('uploaded_files').whereIn('id', ids).where('status', 'DONE').count<{ count: number }[]>('* as count');
  return Number(done[0].count);
}

function report(t: { log(...values: unknown[]): void }, label: string, tally: Tally, done: number) {
  const line = `${label}: accepted ${tally.accepted.size} / completed ${done} / lost ${tally.accepted.size - done} (503 service_unavailable answers: ${tally.unavailable})`;
  t.log(line);
  console.log(`[faults] ${line}`);
  if (tally.wrong.length) {
    // What the supervisor and the parts said, to tell a crash from a refusal.
    t.log(start.output().split('\n').filter((entry) => entry.startsWith('[start]') || /"level":(50|60)/.test(entry)).slice(-30).join('\n'));
  }
}

test.serial('Postgres killed mid-burst and unable to start for 10 s: npm start restarts it once it can; 503 + Retry-After meanwhile, nothing accepted is lost', async (t) => {
  t.timeout(240_000);
  const pgPort = Number(environment.env.EMBEDDED_POSTGRES_PORT);
  let outage = 0;
  const tally = await burst('pg', async () => {
    const killed = postgresPid(environment.dataDir)!;
    // Its port taken meanwhile, as by a stray process: the first restarts fail, and npm start
    // keeps trying with longer delays until the port is free (scripts/embedded/kept-running.ts).
    const squatter = net.createServer();
    process.kill(killed, 'SIGKILL');
    const stopped = Date.now();
    await waitUntil(() => !isAlive(killed), 5_000, 'Postgres to die');
    await waitUntil(() => new Promise<boolean>((resolve) => squatter.once('error', () => resolve(false)).listen(pgPort, '127.0.0.1', () => resolve(true))), 10_000, 'the port to be free');
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    await new Promise((resolve) => squatter.close(resolve));
    await waitUntil(() => postgresPid(environment.dataDir) !== null, 60_000, 'npm start to restart Postgres');
    outage = Date.now() - stopped;
  });
  const done = await completed('pg', tally);
  report(t, `postgres killed, back after ${(outage / 1000).toFixed(1)} s`, tally, done);
  t.true(outage >= 10_000);
  t.regex(start.output(), /\[start\] postgres stopped unexpectedly after [\d.]+ s; restarting it in 1 s \(restart 1\)/);
  t.regex(start.output(), /\[start\] postgres could not start again: .*; restarting it in 2 s \(restart 2\)/);
  t.regex(start.output(), /\[start\] postgres is back/);
  t.deepEqual(tally.wrong, [], 'every answer was 202, or 503 service_unavailable with Retry-After');
  t.true(tally.unavailable > 0, 'requests during the outage were answered 503');
  t.is(tally.accepted.size, UPLOADS, 'every upload was accepted in the end');
  t.is(done, tally.accepted.size, 'lost = 0');
  // Nothing was kept of the refused attempts: one row per upload.
  const rows = await db('uploaded_files').where('idempotency_key', 'like', 'pg-%').count<{ count: number }[]>('* as count');
  t.is(Number(rows[0].count), UPLOADS);
});

test.serial('the SQLite-backed Temporal dev server killed mid-burst: npm start restarts it, workflows survive, nothing accepted is lost', async (t) => {
  t.timeout(240_000);
  const killed = start.record().temporal!;
  const tally = await burst('temporal', async () => {
    process.kill(killed, 'SIGKILL');
    await waitUntil(() => !isAlive(killed), 15_000, 'the Temporal dev server to die');
    await waitUntil(() => start.record().temporal !== killed, 60_000, 'npm start to restart the Temporal dev server');
  });
  const done = await completed('temporal', tally);
  report(t, 'temporal killed', tally, done);
  t.regex(start.output(), new RegExp(`\\[start\\] the Temporal dev server \\(pid ${killed}\\) stopped unexpectedly after [\\d.]+ s; restarting it in 1 s \\(restart 1\\)`));
  const restarted = start.record().temporal!;
  t.true(isAlive(restarted), 'the run record names the new server, which runs');
  t.regex(start.output(), new RegExp(`\\[start\\] the Temporal dev server is back \\(pid ${restarted}\\)`));
  t.deepEqual(tally.wrong, [], 'every answer was 202, or 503 service_unavailable with Retry-After');
  t.is(tally.accepted.size, UPLOADS, 'every upload was accepted in the end');
  t.is(done, tally.accepted.size, 'lost = 0');
  const rows = await db('uploaded_files').where('idempotency_key', 'like', 'temporal-%').count<{ count: number }[]>('* as count');
  t.is(Number(rows[0].count), UPLOADS);
});

/** Holds `port` (as a stray process would) until released, so a killed Postgres cannot start again meanwhile. */
async function holdPort(port: number): Promise<() => Promise<void>> {
  const squatter = net.createServer();
  await waitUntil(() => new Promise<boolean>((resolve) => squatter.once('error', () => resolve(false)).listen(port, '127.0.0.1', () => resolve(true))), 10_000, 'the port to be free');
  return () => new Promise((resolve) => squatter.close(() => resolve()));
}

test.serial('Postgres killed while an export is at the ERP, down for 10 s after the ERP booked it: retried with the same idempotency key, booked once, succeeded, one event', async (t) => {
  t.timeout(240_000);
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  const call = async (method: string, pathname: string, body?: unknown) => {
    const response = await fetch(`${environment.apiUrl}${pathname}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
  // The ERP books each idempotency key once; on the first request Postgres is killed (and its port
  // held), and the ERP answers 3 s later, while Postgres is dead, so the attempt cannot record the booking.
  const outage: { release: (() => Promise<void>) | null } = { release: null };
  const erp = await startDeduplicatingErp(async (index) => {
    if (index > 0) return;
    const postgres = postgresPid(environment.dataDir)!;
    process.kill(postgres, 'SIGKILL');
    await waitUntil(() => !isAlive(postgres), 5_000, 'Postgres to die');
    outage.release = await holdPort(Number(environment.env.EMBEDDED_POSTGRES_PORT));
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  });
  const { received, booked } = erp;
  try {
    const integration = await call('POST', `/v1/companies/${companyId}/integrations`, {
      name: 'erp-pg', provider: 'generic_http',
      credentials: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' },
      settings: { url: erp.url },
    });
    t.is(integration.status, 201, JSON.stringify(integration.body));
    const invoices = await call('GET', `/v1/companies/${companyId}/invoices?limit=100`);
    const invoice = (invoices.body.data as { id: number; kind: string; document_type: string; export: unknown }[]).find((item) => item.kind === 'purchase' && item.document_type === 'electronic_invoice' && !item.export);
    t.truthy(invoice, JSON.stringify(invoices.body).slice(0, 500));
    const started = await call('POST', `/v1/companies/${companyId}/invoices/${invoice!.id}/export`, { integration: 'erp-pg' });
    t.is(started.status, 202, JSON.stringify(started.body));
    const exportId = started.body.id as number;

    await waitUntil(() => outage.release !== null, 30_000, 'the ERP to receive the export and Postgres to be killed');
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    await outage.release!();
    await waitUntil(() => postgresPid(environment.dataDir) !== null, 60_000, 'npm start to restart Postgres');

    const record = async () => (await db('exports').where({ id: exportId }).first()) as { status: string; external_reference: unknown };
    // Postgres answers "starting up" for a moment after its restart: the probe asks again.
    await waitUntil(async () => (await record().catch(() => ({ status: 'pending' }))).status !== 'pending', 120_000, 'the export to end');
    const events = await db('events').where({ company_id: companyId }).where('type', 'like', 'export.%').whereRaw("data->>'id' = ?", [String(exportId)]).pluck('type');
    const line = `postgres kill -9 mid-export: ${(await record()).status}; ERP requests ${received.length} (keys ${[...new Set(received)].join(', ')}), bookings ${booked.size}; events ${events.join(', ')}`;
    t.log(line);
    console.log(`[faults] ${line}`);
    t.is((await record()).status, 'succeeded');
    t.true(received.length >= 2, 'the lost attempt was made again');
    t.deepEqual([...new Set(received)], [`export-${exportId}`], 'every attempt carried the same idempotency key');
    t.is(booked.size, 1, 'booked once');
    await waitUntil(async () => (await db('events').where({ company_id: companyId, type: 'export.succeeded' }).whereRaw("data->>'id' = ?", [String(exportId)])).length > 0, 30_000, 'the event');
    t.deepEqual(await db('events').where({ company_id: companyId }).where('type', 'like', 'export.%').whereRaw("data->>'id' = ?", [String(exportId)]).pluck('type'), ['export.succeeded']);
  } finally {
    await outage.release?.().catch(() => undefined);
    await erp.close();
  }
});
