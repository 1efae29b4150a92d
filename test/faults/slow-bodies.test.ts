import { createHash } from 'node:crypto';
import net from 'node:net';
import test from 'ava';
import { demoInvoiceXml } from '../../admin/demo-documents';
import { seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { paddedXml, upload } from '../support/ingestion';
import { dripRequest } from '../support/raw-http';

// Slowloris on the real API: request bodies and headers sent a few bytes a second, on raw
// loopback sockets. The pace is shortened so the test is quick (grace and idle timeout 1 s,
// headers 2 s, read by the app's configuration); the request timeout keeps Node's 300 s, so
// only the API's own pace can refuse a drip in time. An upload that finds no room in the upload
// budget waits 3 s, not 15 (read by api/middleware/upload-memory.ts from this process's environment).
process.env.API_UPLOADS_WAIT_MS = '3000';
const PACE = { API_BODY_GRACE_MS: '1000', API_BODY_IDLE_TIMEOUT_MS: '1000', API_HEADERS_TIMEOUT_MS: '2000' };
/** How long a drip is kept up before the test gives up on an answer. */
const GIVE_UP_MS = 12_000;

let api: TestApi;
let key: string;
let companyId: number;

test.before(async () => {
  api = await startTestApi(PACE);
  companyId = (await seedCompany(api.database, 'Goteo S.A.S.', '900108281')).id;
  key = (await seedKey(api.database, { scopes: ['documents:write', 'documents:read', 'webhooks:manage'], role: 'admin' })).key;
});
test.after.always(async () => api?.close());

type Dripped = { status: number; code?: string; ms: number };

/** Writes `head`, then `chunk` every second (none when null): the answer's status (0: none within GIVE_UP_MS) and code. */
async function drip(head: string, chunk: Buffer | null): Promise<Dripped> {
  const { answer, ms } = await dripRequest(api.url, head, chunk, { giveUpMs: GIVE_UP_MS });
  return { status: answer?.status ?? 0, code: (answer?.body as { error?: { code?: string } } | undefined)?.error?.code, ms };
}

const uploadHead = (declared: number) =>
  `POST /v1/companies/${companyId}/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: multipart/form-data; boundary=X\r\n` +
  `Content-Length: ${declared}\r\n\r\n--X\r\nContent-Disposition: form-data; name="file"; filename="big.xml"\r\n\r\n<?xml version="1.0"?>`;

const invoice = (label: string, bytes = 0) => {
  const xml = demoInvoiceXml(`FE-${label}`, createHash('sha384').update(label).digest('hex'), '800197268', '900108281');
  return bytes > xml.length ? paddedXml(xml, bytes) : xml;
};

const report = (t: { log(...values: unknown[]): void }, line: string) => {
  t.log(line);
  console.log(`[faults] ${line}`);
};

test.serial('seven uploads declaring 20 MiB and sending 1 KiB a second: each 408 request_timeout soon after its body is read, its budget freed; an upload meanwhile is 202', async (t) => {
  t.timeout(60_000);
  const slow = Promise.all(Array.from({ length: 7 }, () => drip(uploadHead(20 * 1024 * 1024), Buffer.alloc(1024, 0x20))));
  await new Promise((resolve) => setTimeout(resolve, 300));
  const started = Date.now();
  const meanwhile = await upload(api.url, key, companyId, { name: 'FE-SLOW-1.xml', bytes: invoice('slow-1') });
  const meanwhileMs = Date.now() - started;
  const answers = await slow;
  report(t, `7 uploads of 20 MiB at 1 KiB/s: ${answers.map((answer) => `${answer.status} ${answer.code ?? ''} in ${answer.ms} ms`).join(', ')}; an upload meanwhile ${meanwhile.status} in ${meanwhileMs} ms`);
  // Before 2026-11-25 each held 20 MiB of the 128 MiB budget until Node's 5-minute request
  // timeout: the upload meanwhile waited for room and got 503 service_unavailable.
  t.is(meanwhile.status, 202, JSON.stringify(meanwhile.body));
  t.true(meanwhileMs < 5_000, `the upload meanwhile took ${meanwhileMs} ms`);
  for (const answer of answers) {
    t.deepEqual([answer.status, answer.code], [408, 'request_timeout']);
    // Six are read at once and refused after the 1 s grace; the seventh waited for their room first.
    t.true(answer.ms < 5_000, `answered in ${answer.ms} ms`);
  }
});

test.serial('an honest slow upload, 20 MB at 1 MB/s, is accepted', async (t) => {
  t.timeout(60_000);
  const file = invoice('honest', 20_000_000);
  const boundary = 'HonestBoundary';
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="FE-HONEST.xml"\r\nContent-Type: application/xml\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const head = `POST /v1/companies/${companyId}/files HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`;
  // 100 KB every 100 ms: 1 MB/s.
  const { port } = new URL(api.url);
  const started = Date.now();
  const answer = await new Promise<string>((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    let sent = 0;
    socket.on('data', (data) => (received += data.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    socket.write(head);
    const pump = setInterval(() => {
      if (sent >= body.length || !socket.writable) return clearInterval(pump);
      socket.write(body.subarray(sent, sent + 100_000));
      sent += 100_000;
    }, 100);
  });
  const ms = Date.now() - started;
  report(t, `an upload of ${body.length} bytes at 1 MB/s: ${answer.split('\r\n')[0]} in ${ms} ms`);
  t.is(answer.split('\r\n')[0], 'HTTP/1.1 202 Accepted');
  t.true(ms >= 19_000, `it really was slow (${ms} ms)`);
});

test.serial('a JSON body sent a byte a second, or stalled half-way: 408 request_timeout within the grace or the idle timeout', async (t) => {
  t.timeout(60_000);
  const jsonHead = (length: number) =>
    `POST /v1/companies/${companyId}/webhooks HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`;
  const [dripped, stalled] = await Promise.all([
    drip(`${jsonHead(1000)}{`, Buffer.from(' ')),
    // Half of the body at once, then nothing: the average rate stays high, the idle timeout ends it.
    drip(`${jsonHead(100_000)}{"url": "${'x'.repeat(50_000)}`, null),
  ]);
  report(t, `JSON body at 1 B/s: ${dripped.status} ${dripped.code} in ${dripped.ms} ms; JSON body stalled half-way: ${stalled.status} ${stalled.code} in ${stalled.ms} ms`);
  // Before 2026-11-25 both were held until Node's 5-minute request timeout.
  for (const answer of [dripped, stalled]) {
    t.deepEqual([answer.status, answer.code], [408, 'request_timeout']);
    t.true(answer.ms < 3_000, `answered in ${answer.ms} ms`);
  }
});

test.serial('headers sent a byte a second: 408 request_timeout at API_HEADERS_TIMEOUT_MS', async (t) => {
  t.timeout(60_000);
  const answer = await drip('GET /healthz HTTP/1.1\r\nHost: x\r\n', Buffer.from('X'));
  report(t, `headers at 1 B/s: ${answer.status} ${answer.code} in ${answer.ms} ms`);
  // Before 2026-11-25: Node's 60 s headersTimeout, looked at every 30 s (85 s measured on npm start).
  t.deepEqual([answer.status, answer.code], [408, 'request_timeout']);
  t.true(answer.ms >= 2_000 && answer.ms < 4_000, `answered in ${answer.ms} ms`);
});

test.serial('a body nobody reads (404, 405, 401), dripped: answered at once; a large or chunked one with Connection: close and the socket closed with it, a small one dropped after the answer and closed 2 s on', async (t) => {
  t.timeout(60_000);
  const kib = Buffer.alloc(1024, 0x20);
  const json = (request: string, length: number | 'chunked', headers = '') =>
    `${request} HTTP/1.1\r\nHost: x\r\n${headers}Content-Type: application/json\r\n` +
    (length === 'chunked' ? 'Transfer-Encoding: chunked\r\n\r\n400\r\n' : `Content-Length: ${length}\r\n\r\n`) + '{';
  const chunk = Buffer.from(`400\r\n${' '.repeat(1024)}\r\n`);
  const unread = [
    { label: '404, 1 MB declared', head: json('POST /v1/nope', 1_000_000), drip: kib, status: 404, small: false },
    { label: '404, chunked', head: `${json('POST /v1/nope', 'chunked')}${' '.repeat(1023)}\r\n`, drip: chunk, status: 404, small: false },
    { label: '405, 1 MB declared', head: json('DELETE /v1/companies', 1_000_000, `Authorization: Bearer ${key}\r\n`), drip: kib, status: 405, small: false },
    { label: '401, a 20 MiB upload', head: uploadHead(20 * 1024 * 1024).replace(/Authorization: [^\r]*\r\n/, ''), drip: kib, status: 401, small: false },
    { label: '404, 1000 bytes declared', head: json('POST /v1/nope', 1000), drip: Buffer.from(' '), status: 404, small: true },
    { label: '401, 1000 bytes declared', head: json(`POST /v1/companies/${companyId}/webhooks`, 1000), drip: Buffer.from(' '), status: 401, small: true },
  ];
  const answers = await Promise.all(unread.map(({ head, drip }) => dripRequest(api.url, head, drip, { giveUpMs: GIVE_UP_MS })));
  report(t, `unread bodies dripped: ${answers.map(({ answer, answeredMs, ms }, i) => `${unread[i].label}: ${answer?.status} (${answer?.headers.connection}) in ${answeredMs} ms, closed in ${ms} ms`).join('; ')}`);
  for (const [i, { answer, answeredMs, ms }] of answers.entries()) {
    const { label, status, small } = unread[i];
    t.is(answer?.status, status, label);
    t.true(answeredMs !== null && answeredMs < 1_000, `${label}: answered in ${answeredMs} ms`);
    // Before 2026-11-25 all six were answered at once, or after a 2 s drain for the small 401, and the
    // socket was held until the client gave up (12 s here; Node's request timeout, 300 s, otherwise).
    if (small) {
      t.true(ms >= 1_500 && ms < 4_000, `${label}: closed in ${ms} ms`);
    } else {
      t.is(answer?.headers.connection, 'close', label);
      t.true(ms < 1_000, `${label}: closed in ${ms} ms`);
    }
  }
});
