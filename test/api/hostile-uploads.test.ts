import { spawn } from 'node:child_process';
import { partNodeArguments } from '../../scripts/build-parts';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import pino from 'pino';
import { errorHandler } from '../../api/middleware/error-handler';
import { readMultipartFile } from '../../api/v1/files/multipart';
import { loadConfig } from '../../config';
import { freePort } from '../../scripts/embedded/ports';
import { bearer, seedCompany, seedKey, serviceEnvironment, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';
import { abortedUpload, filesUnder, rawExchange } from '../support/raw-http';

// Issue 9: one request must never take the service down. Each multipart route gets the
// truncated body (no closing boundary, exact Content-Length) and an upload dropped after 1 MB,
// 100 times each, while /healthz keeps answering; nothing may be stored.

const ROUNDS = 100;
const TRUNCATED = '--X\r\nContent-Disposition: form-data; name="file"; filename="a.xml"\r\n\r\n<a>';

let api: TestApi;
let key: string;
let companyId: number;

test.before(async () => {
  api = await startTestApi();
  const company = await seedCompany(api.database);
  companyId = company.id;
  key = (await seedKey(api.database, { scopes: ['documents:write', 'documents:read'] })).key;
});
test.after.always(async () => api?.close());

function head(path: string, contentLength: number, extra = '', url = api.url) {
  const { host } = new URL(url);
  return (
    `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${bearer(key).Authorization}\r\n` +
    `Content-Type: multipart/form-data; boundary=X\r\nContent-Length: ${contentLength}\r\n${extra}\r\n`
  );
}

async function storedCounts() {
  const [files] = await api.database.db('uploaded_files').count({ n: '*' });
  const [imports] = await api.database.db('dian_imports').count({ n: '*' });
  const blobs = api.config.blobStore.driver === 'filesystem' ? await filesUnder(api.config.blobStore.directory) : [];
  return { files: Number(files.n), imports: Number(imports.n), blobs: blobs.length };
}

/** Runs `count` calls of `one`, `concurrency` at a time. */
async function inBatches(count: number, concurrency: number, one: (i: number) => Promise<void>) {
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await one(next++);
  }));
}

for (const route of ['files', 'dian-imports']) {
  test.serial(`${route}: ${ROUNDS} truncated and ${ROUNDS} aborted uploads, health answers 200 throughout, nothing stored`, async (t) => {
    const path = `/v1/companies/${companyId}/${route}`;
    const before = await storedCounts();
    let healthChecks = 0;
    let unhealthy = 0;
    let hammering = true;
    const health = (async () => {
      while (hammering) {
        const response = await fetch(`${api.url}/healthz`);
        await response.arrayBuffer();
        healthChecks += 1;
        if (response.status !== 200) unhealthy += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();

    const answers = new Map<string, number>();
    await inBatches(ROUNDS, 10, async () => {
      const answer = await rawExchange(api.url, head(path, Buffer.byteLength(TRUNCATED), 'Connection: close\r\n') + TRUNCATED);
      const label = answer ? `${answer.status} ${answer.body?.error?.code}` : 'no answer';
      answers.set(label, (answers.get(label) ?? 0) + 1);
    });
    await inBatches(ROUNDS, 10, () =>
      abortedUpload(api.url, (length) => head(path, length), 5 * 1024 * 1024, 1024 * 1024),
    );
    hammering = false;
    await health;

    t.deepEqual([...answers], [['400 invalid_multipart', ROUNDS]]);
    t.true(healthChecks > 0);
    t.is(unhealthy, 0);
    const final = await fetch(`${api.url}/healthz`);
    t.is(final.status, 200);
    t.deepEqual(await storedCounts(), before);
    // The service still takes a proper upload afterwards (files only: an import run needs DIAN settings).
    if (route === 'files') {
      const form = new FormData();
      form.append('file', new Blob(['%PDF-1.4\n%%EOF\n']), 'a.pdf');
      const ok = await fetch(`${api.url}${path}`, { method: 'POST', headers: bearer(key), body: form });
      t.is(ok.status, 202);
    }
  });
}

test.serial('an upload over the size limit is refused with 413 without reading the rest', async (t) => {
  const announced = 25 * 1024 * 1024;
  const start = '--X\r\nContent-Disposition: form-data; name="file"; filename="big.xml"\r\n\r\n';
  const { host } = new URL(api.url);
  // Send everything but keep the socket half open: the answer must come without the closing boundary.
  const answer = await new Promise<{ status: number; code: string }>((resolve, reject) => {
    const request = http.request(`${api.url}/v1/companies/${companyId}/files`, {
      method: 'POST',
      headers: { Host: host, ...bearer(key), 'Content-Type': 'multipart/form-data; boundary=X', 'Content-Length': String(announced) },
    }, async (response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of response) chunks.push(chunk as Buffer);
      resolve({ status: response.statusCode ?? 0, code: JSON.parse(Buffer.concat(chunks).toString()).error.code });
      request.destroy();
    });
    request.on('error', (error) => (error.message.includes('EPIPE') || error.message.includes('ECONNRESET') ? undefined : reject(error)));
    request.write(start);
    const chunk = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 21; i += 1) request.write(chunk);
  });
  t.deepEqual(answer, { status: 413, code: 'file_too_large' });
});

test('readMultipartFile settles (request_aborted) when the client disconnects mid-upload', async (t) => {
  const outcomes: string[] = [];
  const app = new Koa();
  app.silent = true;
  app.use(errorHandler(pino({ level: 'silent' })));
  app.use(async (ctx) => {
    try {
      await readMultipartFile(ctx.req, ctx.get('Content-Type'), 20 * 1024 * 1024, loadConfig({}).http.bodyPace);
      outcomes.push('resolved');
    } catch (error) {
      outcomes.push((error as { code: string }).code);
      throw error;
    }
  });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const start = '--X\r\nContent-Disposition: form-data; name="file"; filename="a.xml"\r\n\r\n';
    const head = (length: number) => `POST / HTTP/1.1\r\nHost: x\r\nContent-Type: multipart/form-data; boundary=X\r\nContent-Length: ${length}\r\n\r\n${start}`;
    await Promise.all(Array.from({ length: 5 }, () => abortedUpload(url, head, 5 * 1024 * 1024, 1024 * 1024)));
    for (let waited = 0; outcomes.length < 5 && waited < 5000; waited += 50) await new Promise((resolve) => setTimeout(resolve, 50));
    t.deepEqual(outcomes, Array(5).fill('request_aborted'));
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test.serial('the real API process (npm run api) survives the same inputs and keeps answering', async (t) => {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const root = path.resolve(__dirname, '../..');
  const child = spawn(process.execPath, partNodeArguments('api'), {
    cwd: root,
    env: serviceEnvironment(api, { PORT: String(port), HOST: '127.0.0.1', SMTP_PORT: '0', LOG_LEVEL: 'error' }),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  try {
    await eventually(async () => ((await fetch(`${url}/healthz`).catch(() => null))?.status === 200 ? true : undefined), 60_000);
    for (const route of ['files', 'dian-imports']) {
      const target = `/v1/companies/${companyId}/${route}`;
      await inBatches(30, 10, async () => {
        const answer = await rawExchange(url, head(target, Buffer.byteLength(TRUNCATED), 'Connection: close\r\n', url) + TRUNCATED);
        t.is(answer?.status, 400);
      });
      await inBatches(10, 5, () => abortedUpload(url, (length) => head(target, length, '', url), 5 * 1024 * 1024, 1024 * 1024));
    }
    t.is(child.exitCode, null, stderr);
    t.is((await fetch(`${url}/healthz`)).status, 200);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
});

test.serial('multipart without a boundary, or with an empty body, is 400 invalid_multipart on both routes', async (t) => {
  const before = await storedCounts();
  for (const route of ['files', 'dian-imports']) {
    const target = `/v1/companies/${companyId}/${route}`;
    const noBoundary = head(target, 3, 'Connection: close\r\n').replace('multipart/form-data; boundary=X', 'multipart/form-data') + 'abc';
    for (const raw of [noBoundary, head(target, 0, 'Connection: close\r\n')]) {
      const answer = await rawExchange(api.url, raw);
      t.is(answer?.status, 400, `${route}: ${raw.split('\r\n').find((line) => line.startsWith('Content-Type'))}`);
      t.is(answer?.body?.error?.code, 'invalid_multipart');
    }
  }
  t.deepEqual(await storedCounts(), before);
});

/** A multipart body written by hand, as curl sends it: the file name's bytes raw UTF-8. */
function multipart(parts: { name: string; fileName?: string; value: string }[]): Buffer {
  const body = parts
    .map((part) => `--X\r\nContent-Disposition: form-data; name="${part.name}"${part.fileName ? `; filename="${part.fileName}"` : ''}\r\n\r\n${part.value}\r\n`)
    .join('');
  return Buffer.from(`${body}--X--\r\n`, 'utf8');
}

test('a file name in raw UTF-8 (as curl and browsers send it) is kept as written, in the record and the download', async (t) => {
  const fileName = 'Factura Electrónica Año Ñandú.pdf';
  const pdf = '%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\nstartxref\n9\n%%EOF\n';
  const response = await fetch(`${api.url}/v1/companies/${companyId}/files`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'multipart/form-data; boundary=X' },
    body: new Uint8Array(multipart([{ name: 'file', fileName, value: pdf }])),
  });
  const body = (await response.json()) as { id: number; file_name: string };
  t.is(response.status, 202, JSON.stringify(body));
  t.is(body.file_name, fileName);
  const stored = (await (await fetch(`${api.url}/v1/companies/${companyId}/files/${body.id}`, { headers: bearer(key) })).json()) as { file_name: string };
  t.is(stored.file_name, fileName);
  const download = await fetch(`${api.url}/v1/companies/${companyId}/files/${body.id}/content`, { headers: bearer(key) });
  t.is(download.status, 200);
  t.true(decodeURIComponent(/filename\*=UTF-8''([^;]+)/i.exec(download.headers.get('content-disposition') ?? '')?.[1] ?? '').includes('Factura Electrónica Año Ñandú'), download.headers.get('content-disposition') ?? '');
});

/** A PDF upload whose Content-Disposition parameters after `name="file"` are these bytes, as written. */
async function uploadNamed(disposition: Buffer) {
  const pdf = '%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\nstartxref\n9\n%%EOF\n';
  const body = Buffer.concat([Buffer.from('--X\r\nContent-Disposition: form-data; name="file"; '), disposition, Buffer.from(`\r\n\r\n${pdf}\r\n--X--\r\n`)]);
  const response = await fetch(`${api.url}/v1/companies/${companyId}/files`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'multipart/form-data; boundary=X' },
    body: new Uint8Array(body),
  });
  return { status: response.status, body: (await response.json()) as { file_name?: string; error?: { code: string; param?: string } } };
}

test('a file name in Latin-1 (a legacy client) is read as Latin-1, filename* by its charset, and bytes its declared charset cannot read are refused', async (t) => {
  // A raw 0xE9 in filename="…" was stored as "P\uFFFDrez.pdf" (read as UTF-8) before 2026-11-25.
  t.like(await uploadNamed(Buffer.concat([Buffer.from('filename="P'), Buffer.from([0xe9]), Buffer.from('rez N\u00ba 7.pdf"', 'latin1')])), { status: 202, body: { file_name: 'Pérez Nº 7.pdf' } });
  t.like(await uploadNamed(Buffer.from('filename="Pérez €.pdf"', 'utf8')), { status: 202, body: { file_name: 'Pérez €.pdf' } });
  t.like(await uploadNamed(Buffer.from("filename*=UTF-8''P%C3%A9rez%20%E2%82%AC.pdf")), { status: 202, body: { file_name: 'Pérez €.pdf' } });
  t.like(await uploadNamed(Buffer.from("filename*=ISO-8859-1''P%E9rez.pdf")), { status: 202, body: { file_name: 'Pérez.pdf' } });
  // Declared UTF-8, not UTF-8: no name can be read from it.
  t.like(await uploadNamed(Buffer.from("filename*=UTF-8''P%E9rez.pdf")), { status: 400, body: { error: { code: 'invalid_parameter', param: 'file' } } });
  // C1 control characters (0x80-0x9F in Latin-1) are dropped like the other control characters.
  t.like(await uploadNamed(Buffer.concat([Buffer.from('filename="a'), Buffer.from([0x85, 0x9f]), Buffer.from('b.pdf"')])), { status: 202, body: { file_name: 'ab.pdf' } });
});

test('bidirectional control characters (U+202E RIGHT-TO-LEFT OVERRIDE and the others) are dropped from a file name, so it reads as it is', async (t) => {
  // "factura\u202Eexe.pdf" displays as "facturafdp.exe": an extension spoof in any list or
  // download dialog showing the name (kept as sent before 2026-11-25).
  t.like(await uploadNamed(Buffer.from('filename="factura\u202Eexe.pdf"', 'utf8')), { status: 202, body: { file_name: 'facturaexe.pdf' } });
  const spoof = "filename*=UTF-8''" + encodeURIComponent('a\u202Ab\u202Bc\u202Cd\u202De\u2066f\u2067g\u2068h\u2069i\u200Ej\u200Fk\u061Cl.pdf');
  t.like(await uploadNamed(Buffer.from(spoof)), { status: 202, body: { file_name: 'abcdefghijkl.pdf' } });
});

test.serial('a text field or a file sent twice in a multipart body is refused like a repeated query parameter, and nothing is stored', async (t) => {
  const before = await storedCounts();
  const response = await fetch(`${api.url}/v1/companies/${companyId}/files`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'multipart/form-data; boundary=X' },
    body: new Uint8Array(multipart([
      { name: 'kind', value: 'electronic_invoice' },
      { name: 'kind', value: 'foreign_invoice' },
      { name: 'file', fileName: 'a.pdf', value: '%PDF-1.4\n%%EOF\n' },
    ])),
  });
  t.is(response.status, 400);
  t.like(((await response.json()) as { error: object }).error, { code: 'invalid_parameter', param: 'kind', message: 'kind must be given once.' });
  // Two files (curl -F file=@a.xml -F file=@b.xml): refused, not the first kept and the second dropped.
  const twoFiles = await fetch(`${api.url}/v1/companies/${companyId}/files`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'multipart/form-data; boundary=X' },
    body: new Uint8Array(multipart([
      { name: 'file', fileName: 'a.pdf', value: '%PDF-1.4\n%%EOF\n' },
      { name: 'file', fileName: 'b.pdf', value: '%PDF-1.4\n%%EOF\n' },
    ])),
  });
  t.is(twoFiles.status, 400);
  t.like(((await twoFiles.json()) as { error: object }).error, { code: 'invalid_parameter', param: 'file' });
  t.deepEqual(await storedCounts(), before);
});

test.serial('a part with no name (Content-Disposition: form-data, no name) is a 400, and the API goes on', async (t) => {
  const before = await storedCounts();
  const parts = [
    '--X\r\nContent-Disposition: form-data\r\n\r\nsin nombre\r\n',
    '--X\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n\r\n%PDF-1.4\n%%EOF\n\r\n',
    '--X--\r\n',
  ];
  for (const path of [`/v1/companies/${companyId}/files`, `/v1/companies/${companyId}/dian-imports`]) {
    const response = await fetch(`${api.url}${path}`, {
      method: 'POST',
      headers: { ...bearer(key), 'Content-Type': 'multipart/form-data; boundary=X' },
      body: new Uint8Array(Buffer.from(parts.join(''), 'utf8')),
    });
    t.is(response.status, 400, path);
    t.like(((await response.json()) as { error: object }).error, { code: 'invalid_multipart' }, path);
  }
  // A field named like an object's own properties is an ordinary field (refused as unknown).
  const proto = await fetch(`${api.url}/v1/companies/${companyId}/files`, {
    method: 'POST',
    headers: { ...bearer(key), 'Content-Type': 'multipart/form-data; boundary=X' },
    body: new Uint8Array(multipart([{ name: '__proto__', value: 'x' }, { name: 'file', fileName: 'a.pdf', value: '%PDF-1.4\n%%EOF\n' }])),
  });
  t.is(proto.status, 400);
  t.is((await fetch(`${api.url}/healthz`)).status, 200);
  t.deepEqual(await storedCounts(), before);
});

test('a file name ends in the extension of what the file is: added when the name lies or has none, kept in any case', async (t) => {
  const xml = '<?xml version="1.0"?><Invoice/>';
  for (const [sent, kept] of [['factura.html', 'factura.html.xml'], ['FE-77.XML', 'FE-77.XML'], ['sin-extension', 'sin-extension.xml']]) {
    const response = await fetch(`${api.url}/v1/companies/${companyId}/files`, {
      method: 'POST',
      headers: { ...bearer(key), 'Content-Type': 'multipart/form-data; boundary=X' },
      body: new Uint8Array(multipart([{ name: 'file', fileName: sent, value: xml }])),
    });
    const body = (await response.json()) as { file_name: string };
    t.is(response.status, 202, JSON.stringify(body));
    t.is(body.file_name, kept, sent);
  }
});
