import { createHash } from 'node:crypto';
import net from 'node:net';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { paddedXml, upload } from '../support/ingestion';
import { dripRequest } from '../support/raw-http';

// Clock and resource edges on the real API: slow bodies declaring a huge length, many idle
// connections, upload bursts at the rate limit. The process keeps answering /healthz promptly
// (its latency is printed) and every upload gets a clear answer.
let api: TestApi;
let key: string;
let companyId: number;

test.before(async () => {
  api = await startTestApi();
  companyId = (await seedCompany(api.database, 'Bordes S.A.S.', '900108281')).id;
  key = (await seedKey(api.database, { scopes: ['documents:write', 'documents:read'], role: 'admin' })).key;
});
test.after.always(async () => api?.close());

const invoice = (label: string, bytes = 0) => {
  const xml = demoInvoiceXml(`FE-${label}`, createHash('sha384').update(label).digest('hex'), '800197268', '900108281');
  return bytes > xml.length ? paddedXml(xml, bytes) : xml;
};

/** /healthz every 100 ms until `stop` resolves: its latencies, sorted. */
async function healthzWhile(url: string, stop: Promise<unknown>): Promise<number[]> {
  const latencies: number[] = [];
  let stopped = false;
  void stop.finally(() => (stopped = true));
  while (!stopped) {
    const started = performance.now();
    const status = await fetch(`${url}/healthz`).then((response) => response.status, () => 0);
    latencies.push(status === 200 ? performance.now() - started : Number.POSITIVE_INFINITY);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return latencies.sort((a, b) => a - b);
}

const summary = (latencies: number[]) =>
  `/healthz n=${latencies.length} p50=${latencies[Math.floor(latencies.length / 2)]?.toFixed(0)} ms max=${latencies.at(-1)?.toFixed(0)} ms`;

/** A multipart upload declaring `declared` bytes that sends its head, then 1 KiB a second; resolves with the answer once the server closes. */
function slowUpload(url: string, declared: number) {
  return dripRequest(
    url,
    `POST /v1/companies/${companyId}/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: multipart/form-data; boundary=X\r\n` +
      `Content-Length: ${declared}\r\n\r\n--X\r\nContent-Disposition: form-data; name="file"; filename="big.xml"\r\n\r\n<?xml version="1.0"?>`,
    Buffer.alloc(1024, 0x20),
    { giveUpMs: 30_000 },
  );
}

test.serial('eight slow requests declaring 1 GB: each refused 413 at once, nothing held; other uploads and /healthz are unaffected', async (t) => {
  t.timeout(60_000);
  const slow = Promise.all(Array.from({ length: 8 }, () => slowUpload(api.url, 1_000_000_000)));
  const healthz = healthzWhile(api.url, slow);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = Date.now();
  const meanwhile = await upload(api.url, key, companyId, { name: 'FE-EDGE-1.xml', bytes: invoice('edge-1') });
  const meanwhileMs = Date.now() - started;
  const answers = await slow;
  const latencies = await healthz;
  const line = `1 GB declared ×8: ${answers.map(({ answer, ms }) => `${answer?.status} in ${ms} ms`).join(', ')}; an upload meanwhile ${meanwhile.status} in ${meanwhileMs} ms; ${summary(latencies)}`;
  t.log(line);
  console.log(`[faults] ${line}`);
  // Before 2026-11-25 each was read (1 KiB/s) holding 20 MB of the 128 MiB upload budget until
  // Node's 5-minute request timeout: six of them made every other upload wait 15 s, then 503.
  for (const { answer, ms } of answers) {
    t.is(answer?.status, 413);
    t.is(answer?.body?.error?.code, 'file_too_large');
    t.true(ms < 5_000, `answered in ${ms} ms`);
  }
  t.is(meanwhile.status, 202);
  t.true(meanwhileMs < 5_000);
  t.true(latencies.at(-1)! < 2_000, summary(latencies));
});

test.serial('1,000 idle connections (500 kept alive after a request, 500 that never send one): the API keeps answering', async (t) => {
  t.timeout(60_000);
  const { port } = new URL(api.url);
  const sockets: net.Socket[] = [];
  let answered = 0;
  try {
    for (let i = 0; i < 500; i += 1) {
      const kept = net.connect(Number(port), '127.0.0.1');
      kept.on('error', () => undefined);
      kept.once('data', () => (answered += 1));
      kept.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      const silent = net.connect(Number(port), '127.0.0.1');
      silent.on('error', () => undefined);
      sockets.push(kept, silent);
    }
    for (let waited = 0; answered < 500 && waited < 20_000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    const idle = new Promise((resolve) => setTimeout(resolve, 5_000));
    const healthz = healthzWhile(api.url, idle);
    const started = Date.now();
    const meanwhile = await upload(api.url, key, companyId, { name: 'FE-EDGE-2.xml', bytes: invoice('edge-2') });
    const meanwhileMs = Date.now() - started;
    const latencies = await healthz;
    const line = `1,000 idle connections: ${answered} of 500 first requests answered; an upload ${meanwhile.status} in ${meanwhileMs} ms; ${summary(latencies)}`;
    t.log(line);
    console.log(`[faults] ${line}`);
    t.is(answered, 500);
    t.is(meanwhile.status, 202);
    t.true(latencies.at(-1)! < 2_000, summary(latencies));
  } finally {
    for (const socket of sockets) socket.destroy();
  }
});

test.serial('a burst of 60 uploads of 300 KiB at a rate limit of 10: each is 202 or 429 with Retry-After, a row for each 202 only', async (t) => {
  t.timeout(60_000);
  const limited = await startTestApi({ RATE_LIMIT_PER_SECOND: '10', RATE_LIMIT_BURST: '10' });
  try {
    const company = await seedCompany(limited.database, 'Límite S.A.S.', '900108281');
    const { key: limitedKey } = await seedKey(limited.database, { scopes: ['documents:write'], role: 'admin' });
    const burst = Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        upload(limited.url, limitedKey, company.id, { name: `FE-RL-${i}.xml`, bytes: invoice(`rl-${i}`, 300 * 1024) }).catch((error: Error) => ({ status: 0, headers: new Headers(), body: { error: { code: String((error.cause as { code?: string })?.code ?? error.message) } } })),
      ),
    );
    const healthz = healthzWhile(limited.url, burst);
    const answers = await burst;
    const latencies = await healthz;
    const tally: Record<string, number> = {};
    for (const answer of answers) {
      const label = `${answer.status} ${answer.body.error?.code ?? ''}`.trim();
      tally[label] = (tally[label] ?? 0) + 1;
    }
    const line = `60 uploads at a limit of 10/s: ${JSON.stringify(tally)}; ${summary(latencies)}`;
    t.log(line);
    console.log(`[faults] ${line}`);
    const unclear = answers.filter((answer) => answer.status !== 202 && !(answer.status === 429 && answer.body.error?.code === 'rate_limited' && Number(answer.headers.get('retry-after')) >= 1));
    t.deepEqual(unclear.map((answer) => `${answer.status} ${JSON.stringify(answer.body)}`), [], 'every refused upload got its 429, not a reset');
    const accepted = answers.filter((answer) => answer.status === 202).length;
    t.true(accepted >= 10 && accepted < 60);
    const rows = Number((await limited.database.db('uploaded_files').count<{ count: number }[]>('* as count'))[0].count);
    t.is(rows, accepted);
    t.true(latencies.at(-1)! < 2_000, summary(latencies));
  } finally {
    await limited.close();
  }
});
