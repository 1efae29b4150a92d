import type { AddressInfo } from 'node:net';
import net from 'node:net';
import test from 'ava';
import Koa from 'koa';
import pino from 'pino';
import { CONNECT_LINGER_MS, createHttpServer } from '../../api/http-server';
import { SCOPES } from '../../domain/scopes';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { abortedUpload, rawExchange, type RawAnswer } from '../support/raw-http';

// Issue 9, the transport half: every method, framing and body a client can get wrong is a 4xx
// with the JSON error body, on every route.

const BODY_LIMIT = 4096;
let api: TestApi;
let key: string;
let companyId: number;
let host: string;

test.before(async () => {
  api = await startTestApi({ REQUEST_BODY_LIMIT_BYTES: String(BODY_LIMIT) });
  companyId = (await seedCompany(api.database)).id;
  key = (await seedKey(api.database, { role: 'admin', scopes: [...SCOPES] })).key;
  host = new URL(api.url).host;
});
test.after.always(async () => api?.close());

const concrete = (path: string) => path.replace(':company_id', String(companyId)).replace(/:[a-z_]+/g, '1');

function send(method: string, path: string, headers: Record<string, string> = {}, body: string | Buffer = ''): Promise<RawAnswer | null> {
  const lines = Object.entries({ Host: host, Connection: 'close', 'Content-Length': String(Buffer.byteLength(body)), ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
  return rawExchange(api.url, Buffer.concat([Buffer.from(`${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`), Buffer.from(body)]));
}

function methodsByPath(): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  for (const route of api.routes) {
    if (!byPath.has(route.path)) byPath.set(route.path, new Set());
    byPath.get(route.path)!.add(route.method);
  }
  return byPath;
}

test('every known path answers a method it lacks (including TRACE and PROPFIND) with 405, Allow and the error body', async (t) => {
  const byPath = methodsByPath();
  t.true(byPath.size > 20);
  for (const [path, methods] of byPath) {
    const missing = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((method) => !methods.has(method));
    for (const method of [...missing, 'TRACE', 'PROPFIND']) {
      const answer = await send(method, concrete(path), bearer(key));
      t.is(answer?.status, 405, `${method} ${path}`);
      t.is(answer?.body?.error?.code, 'method_not_allowed', `${method} ${path}`);
      const allow = (answer?.headers.allow ?? '').split(/,\s*/);
      for (const method of methods) t.true(allow.includes(method), `${path} Allow lists ${method}: ${answer?.headers.allow}`);
    }
  }
});

/** What Allow must say of a path: its methods, HEAD with GET (the router answers it), and OPTIONS. */
const allowedOn = (methods: Set<string>) => [...methods, ...(methods.has('GET') ? ['HEAD'] : []), 'OPTIONS'].sort().join(', ');
const allowOf = (answer: RawAnswer | null) => (answer?.headers.allow ?? '').split(/\s*,\s*/).sort().join(', ');

test('OPTIONS on every path answers 204 without content, and Allow lists exactly its methods with HEAD and OPTIONS, there and on a 405', async (t) => {
  // It answered 200 with an empty text/plain body and an Allow that left OPTIONS out (before 2026-11-25).
  for (const [path, methods] of methodsByPath()) {
    const options = await send('OPTIONS', concrete(path));
    t.is(options?.status, 204, `OPTIONS ${path}`);
    t.is(options?.headers['content-type'], undefined, `OPTIONS ${path}`);
    t.falsy(options?.body, `OPTIONS ${path}`);
    t.is(allowOf(options), allowedOn(methods), `OPTIONS ${path}`);
    const lacking = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((method) => !methods.has(method))!;
    const refused = await send(lacking, concrete(path), bearer(key));
    t.is(refused?.status, 405, `${lacking} ${path}`);
    t.is(allowOf(refused), allowedOn(methods), `${lacking} ${path}`);
  }
  t.is((await send('OPTIONS', '/v1/nope'))?.status, 404);
});

test('HEAD on every GET route answers as GET does: the same status and headers, no body', async (t) => {
  const varying = new Set(['date', 'x-request-id', 'ratelimit-remaining', 'keep-alive', 'connection']);
  const headersOf = (response: Response) => {
    const headers: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      if (!varying.has(name)) headers[name] = value;
    });
    return headers;
  };
  for (const [path, methods] of methodsByPath()) {
    if (!methods.has('GET')) continue;
    const url = `${api.url}${concrete(path)}`;
    const get = await fetch(url, { headers: bearer(key), redirect: 'manual' });
    await get.arrayBuffer();
    const head = await fetch(url, { method: 'HEAD', headers: bearer(key), redirect: 'manual' });
    t.is(head.status, get.status, `HEAD ${path}`);
    t.is((await head.arrayBuffer()).byteLength, 0, `HEAD ${path}`);
    // The health report's latencies, and so its length, change from one answer to the next.
    const [getHeaders, headHeaders] = [headersOf(get), headersOf(head)];
    if (path === '/healthz') delete getHeaders['content-length'], delete headHeaders['content-length'];
    t.deepEqual(headHeaders, getHeaders, `HEAD ${path}`);
  }
});

test('Accept, Accept-Charset and Accept-Encoding the API cannot honour are disregarded, never 406: the documented JSON, uncompressed', async (t) => {
  const paths = ['/v1/companies', `/v1/companies/${companyId}`, '/v1/companies/999999', '/v1/companies/abc', '/v1/openapi.json', '/healthz'];
  for (const headers of [{ Accept: 'text/html' }, { Accept: 'application/xml, */*;q=0' }, { 'Accept-Charset': 'iso-8859-1' }, { 'Accept-Encoding': 'gzip, identity;q=0' }] as Record<string, string>[]) {
    for (const path of paths) {
      const plain = await send('GET', path, bearer(key));
      const answer = await send('GET', path, { ...bearer(key), ...headers });
      const label = `${JSON.stringify(headers)} ${path}`;
      t.is(answer?.status, plain?.status, label);
      t.is(answer?.headers['content-type'], 'application/json; charset=utf-8', label);
      t.is(answer?.headers['content-encoding'], undefined, label);
      t.truthy(answer?.body, label);
    }
  }
});

test('an unknown path stays 404 whatever the method', async (t) => {
  for (const method of ['GET', 'TRACE', 'PROPFIND', 'DELETE']) {
    for (const path of ['/nope', '/v1/nope', '/v1/companies/1/nope']) {
      const answer = await send(method, path);
      t.is(answer?.status, 404, `${method} ${path}`);
      t.is(answer?.body?.error?.code, 'not_found');
      t.is(answer?.headers.allow, undefined);
    }
  }
});

test('oversized headers → 431 headers_too_large with the JSON body', async (t) => {
  const answer = await send('GET', '/healthz', { 'X-Padding': 'a'.repeat(20 * 1024) });
  t.is(answer?.status, 431);
  t.is(answer?.body?.error?.code, 'headers_too_large');
  t.regex(answer?.headers['content-type'] ?? '', /application\/json/);
  t.regex(answer?.headers['x-request-id'] ?? '', /^req_[0-9a-f]{24}$/, 'every error carries a request id, those of the parser too');
  // A URL that fits, with headers that take the head over 16 KiB: still the headers' 431.
  const fitting = await send('GET', `/v1/companies?cursor=${'a'.repeat(12 * 1024)}`, { ...bearer(key), 'X-Padding': 'b'.repeat(6 * 1024) });
  t.is(fitting?.status, 431);
  t.is(fitting?.body?.error?.code, 'headers_too_large');
});

test('a request line over 16 KiB → 414 uri_too_long with the JSON body, not the headers\' 431', async (t) => {
  // It was 431 headers_too_large before 2026-11-25 (a strict client and attack probes expect 414).
  for (const path of [`/v1/companies/${'1'.repeat(20 * 1024)}`, `/v1/companies?cursor=${'a'.repeat(20 * 1024)}`, `/healthz?${'x'.repeat(17 * 1024)}`]) {
    const long = await send('GET', path, bearer(key));
    t.is(long?.status, 414, path.slice(0, 30));
    t.is(long?.body?.error?.code, 'uri_too_long');
    t.regex(long?.body?.error?.message ?? '', /request line/);
    t.regex(long?.headers['content-type'] ?? '', /application\/json/);
    t.regex(long?.headers['x-request-id'] ?? '', /^req_[0-9a-f]{24}$/);
    t.is(long?.headers.connection, 'close');
  }
  // A request line that never ends (no CRLF at all) is the same 414.
  const endless = await rawExchange(api.url, `GET /v1/companies/${'2'.repeat(20 * 1024)}`);
  t.is(endless?.status, 414);
  t.is(endless?.body?.error?.code, 'uri_too_long');
});

test('a request line over 16 KiB is 414 also after a pipelined request and when its head arrives in pieces', async (t) => {
  // Both were 431: the line was judged by the first line of the bytes Node's parser handed over,
  // which was the pipelined request's, or the tail of a head written in two parts. (The refusal
  // closes the connection, so the pipelined request before it may go unanswered, as before.)
  const long = `/healthz?${'x'.repeat(20 * 1024)}`;
  const pipelined = await answersTo([`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\nGET ${long} HTTP/1.1\r\nHost: ${host}\r\n\r\n`]);
  t.regex(pipelined, /HTTP\/1\.1 414 URI Too Long\r\n[^]*"code":"uri_too_long"/);
  const inPieces = await answersTo([`GET ${long.slice(0, 8 * 1024)}`, `${long.slice(8 * 1024)} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`]);
  t.regex(inPieces, /^HTTP\/1\.1 414 URI Too Long\r\n[^]*"code":"uri_too_long"/);
  // Headers over the limit after a pipelined request, or in pieces, stay the headers' 431.
  const padding = `X-Padding: ${'p'.repeat(20 * 1024)}\r\n`;
  const headersPipelined = await answersTo([`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\nGET /healthz HTTP/1.1\r\nHost: ${host}\r\n${padding}\r\n`]);
  t.regex(headersPipelined, /HTTP\/1\.1 431 [^]*"code":"headers_too_large"/);
  const headersInPieces = await answersTo([`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n${padding.slice(0, 8 * 1024)}`, `${padding.slice(8 * 1024)}\r\n`]);
  t.regex(headersInPieces, /^HTTP\/1\.1 431 [^]*"code":"headers_too_large"/);
});

/** Everything the server answers to `parts`, each written on its own (100 ms apart), until it closes the connection. */
function answersTo(parts: string[]): Promise<string> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(received));
    void (async () => {
      for (const part of parts) {
        if (!socket.writable) return;
        socket.write(part);
        await new Promise((wait) => setTimeout(wait, 100));
      }
    })();
  });
}

test('an unparseable request (unknown method, garbled request line or header) → 400 malformed_request', async (t) => {
  for (const raw of ['FOO /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 'hello\r\n\r\n', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n', 'POST /v1/me HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n']) {
    const answer = await rawExchange(api.url, raw);
    t.is(answer?.status, 400, JSON.stringify(raw));
    t.is(answer?.body?.error?.code, 'malformed_request');
    t.regex(answer?.headers['x-request-id'] ?? '', /^req_[0-9a-f]{24}$/);
  }
});

test('an HTTP/1.1 request without Host → 400 malformed_request, and an Expect other than 100-continue → 417 expectation_failed, with the JSON body (Node answered both with an empty body)', async (t) => {
  const hostless = await rawExchange(api.url, 'GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
  t.is(hostless?.status, 400);
  t.deepEqual(hostless?.body, { error: { code: 'malformed_request', message: 'An HTTP/1.1 request must carry a Host header.' } });
  t.regex(hostless?.headers['x-request-id'] ?? '', /^req_[0-9a-f]{24}$/);
  const expecting = await send('GET', `/v1/companies/${companyId}/invoices`, { ...bearer(key), Expect: '200-ok' });
  t.is(expecting?.status, 417);
  t.is(expecting?.body?.error?.code, 'expectation_failed');
  t.regex(expecting?.headers['x-request-id'] ?? '', /^req_[0-9a-f]{24}$/);
  // HTTP/1.0 needs no Host.
  t.is((await rawExchange(api.url, 'GET /healthz HTTP/1.0\r\n\r\n'))?.status, 200);
});

/**
 * Writes a request's head with Expect: 100-continue, then its body only once "100 Continue" has
 * come (or never); answers everything the server sent, and whether the connection was closed.
 */
function expectingContinue(method: string, path: string, headers: Record<string, string>, body: string): Promise<{ received: string; closed: boolean }> {
  const { hostname, port } = new URL(api.url);
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), hostname);
    let received = '';
    let bodySent = false;
    const settle = (closed: boolean) => {
      clearTimeout(giveUp);
      socket.destroy();
      resolve({ received, closed });
    };
    const giveUp = setTimeout(() => settle(false), 3_000);
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      if (!bodySent && received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) {
        bodySent = true;
        socket.write(body);
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => settle(true));
    const lines = Object.entries({ Host: host, Expect: '100-continue', 'Content-Length': String(Buffer.byteLength(body)), ...headers }).map(([name, value]) => `${name}: ${value}\r\n`);
    socket.write(`${method} ${path} HTTP/1.1\r\n${lines.join('')}\r\n`);
  });
}

// Node answered 100 Continue to every request at its headers: an upload with a wrong key was told
// to send its body, and sent megabytes before its 401 (found by the contract review).
test('Expect: 100-continue with a large body: the 100 comes when the body is read, after the key; a request refused before gets its answer alone and the connection closes', async (t) => {
  // An upload over 256 KiB (curl sends Expect: 100-continue with large files).
  const boundary = 'continue-boundary';
  const multipart = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="continue.xml"\r\nContent-Type: application/xml\r\n\r\n<Invoice>${' '.repeat(300 * 1024)}</Invoice>\r\n--${boundary}--\r\n`;
  const files = `/v1/companies/${companyId}/files`;
  const multipartType = { 'Content-Type': `multipart/form-data; boundary=${boundary}` };
  const refused = await expectingContinue('POST', files, { Authorization: 'Bearer sk_live_nope', ...multipartType }, multipart);
  t.regex(refused.received, /^HTTP\/1\.1 401 /, 'no 100 Continue before the refusal');
  t.regex(refused.received, /"code":"invalid_api_key"/);
  t.regex(refused.received, /\r\nConnection: close\r\n/i);
  t.true(refused.closed, 'the connection ends with the answer');
  const uploaded = await expectingContinue('POST', files, { ...bearer(key), ...multipartType, Connection: 'close' }, multipart);
  t.regex(uploaded.received, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 202 /, 'the 100 once the part is read, then the answer to the body sent after it');
  // A small body gets its 100 at once, as from Node: an early answer drains it rather than closing.
  const webhooks = `/v1/companies/${companyId}/webhooks`;
  const body = JSON.stringify({ url: 'https://example.com/continue', events: ['webhook.test'] });
  const small = await expectingContinue('POST', webhooks, { Authorization: 'Bearer sk_live_nope', 'Content-Type': 'application/json', Connection: 'close' }, body);
  t.regex(small.received, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 401 /);
  const accepted = await expectingContinue('POST', webhooks, { ...bearer(key), 'Content-Type': 'application/json', Connection: 'close' }, body);
  t.regex(accepted.received, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /);
  // A request that has no body to read is answered without the 100.
  const listed = await expectingContinue('GET', `/v1/companies/${companyId}/invoices`, { ...bearer(key), 'Content-Length': '0', Connection: 'close' }, '');
  t.regex(listed.received, /^HTTP\/1\.1 200 /);
});

test('CONNECT (authority-form or a path) → 405 method_not_allowed with the JSON body; Node destroyed the socket without a word', async (t) => {
  for (const target of ['127.0.0.1:22', `${host}`, '/v1/me']) {
    const answer = await rawExchange(api.url, `CONNECT ${target} HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
    t.is(answer?.status, 405, target);
    t.is(answer?.body?.error?.code, 'method_not_allowed');
    t.regex(answer?.body?.error?.message ?? '', /not a proxy/);
    t.is(answer?.headers.allow, '');
    t.regex(answer?.headers['x-request-id'] ?? '', /^req_[0-9a-f]{24}$/);
  }
  t.is((await rawExchange(api.url, `GET /healthz HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`))?.status, 200, 'the server goes on');
});

test('a refused CONNECT does not hold its socket: a client that never closes its side is cut off after the answer', async (t) => {
  const { hostname, port } = new URL(api.url);
  const socket = net.connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  const gone = new Promise<string>((resolve) => {
    socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
    socket.on('close', () => resolve('closed'));
  });
  socket.write(`CONNECT 127.0.0.1:22 HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
  // Bytes for the tunnel; the client keeps its side open, and writes again after the linger: to a
  // socket the server let go of, the second write fails (the first draws the reset).
  await new Promise((wait) => setTimeout(wait, 200));
  socket.write('SSH-2.0-probe\r\n');
  await new Promise((wait) => setTimeout(wait, CONNECT_LINGER_MS + 500));
  for (const attempt of [1, 2, 3]) {
    if (!socket.destroyed) socket.write(`still here? ${attempt}\r\n`);
    await new Promise((wait) => setTimeout(wait, 200));
  }
  const outcome = await Promise.race([gone, new Promise<string>((resolve) => setTimeout(() => resolve('still open'), 1_000))]);
  socket.destroy();
  t.regex(received, /^HTTP\/1\.1 405 /);
  t.not(outcome, 'still open', 'the server let go of the socket');
});

test('two Host lines, or a Host that is no host name or address → 400 malformed_request (RFC 9112 §3.2); Node kept the first and answered', async (t) => {
  for (const hosts of [['x', 'y'], [host, host], ['a b'], ['x/y'], ['x@y'], ['x:80:80']]) {
    const lines = hosts.map((value) => `Host: ${value}\r\n`).join('');
    const answer = await rawExchange(api.url, `GET /v1/me HTTP/1.1\r\n${lines}Authorization: ${bearer(key).Authorization}\r\nConnection: close\r\n\r\n`);
    t.is(answer?.status, 400, JSON.stringify(hosts));
    t.is(answer?.body?.error?.code, 'malformed_request');
    t.regex(answer?.body?.error?.message ?? '', /at most one Host header/);
    t.regex(answer?.headers['x-request-id'] ?? '', /^req_[0-9a-f]{24}$/);
  }
  for (const value of ['', 'api.example.com', 'api.example.com:443', '[::1]:3000', '[fe80::1%25eth0]:3000', '127.0.0.1', 'xn--factura-7xa.co', 'API.Example.COM.']) {
    const answer = await rawExchange(api.url, `GET /healthz HTTP/1.1\r\nHost: ${value}\r\nConnection: close\r\n\r\n`);
    t.is(answer?.status, 200, JSON.stringify(value));
  }
  // HTTP/1.0 too: the rule is about any request with two.
  t.is((await rawExchange(api.url, 'GET /healthz HTTP/1.0\r\nHost: x\r\nHost: y\r\n\r\n'))?.status, 400);
});

function bodyRoutes() {
  return api.routes.filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method));
}

test('every route that takes a body: wrong type → 415, invalid or truncated JSON → 400, oversized → 413', async (t) => {
  const routes = bodyRoutes();
  t.true(routes.length >= 10);
  const multipartRoutes = new Set(['/v1/companies/:company_id/files', '/v1/companies/:company_id/dian-imports']);
  for (const route of routes) {
    const path = concrete(route.path);
    const label = `${route.method} ${route.path}`;
    const cases: [string, Record<string, string>, string | Buffer, number, string][] = [
      ['text/plain', { 'Content-Type': 'text/plain' }, 'hello', 415, 'unsupported_media_type'],
      ['form', { 'Content-Type': 'application/x-www-form-urlencoded' }, 'a=1', 415, 'unsupported_media_type'],
      ['no type', {}, '{"a":1}', 415, 'unsupported_media_type'],
      ['invalid JSON', { 'Content-Type': 'application/json' }, '{"a": tru', 400, 'invalid_json'],
      ['truncated JSON', { 'Content-Type': 'application/json' }, '{"url": "https://exa', 400, 'invalid_json'],
      // Whitespace alone is no JSON text: it was taken for no body, and a '\r' rotated a webhook secret.
      ['whitespace only', { 'Content-Type': 'application/json' }, ' \r\n', 400, 'invalid_json'],
      // JSON is UTF-8: Latin-1 bytes are not read as U+FFFD (they were, and stored so).
      ['Latin-1 bytes', { 'Content-Type': 'application/json' }, Buffer.from('{"name": "P\u00e9rez"}', 'latin1'), 400, 'invalid_json'],
      ['oversized JSON', { 'Content-Type': 'application/json' }, JSON.stringify({ a: 'x'.repeat(BODY_LIMIT) }), 413, 'payload_too_large'],
      // What it would misread: compressed bytes (it was invalid_json), a charset that is not UTF-8 (JSON is UTF-8).
      ['gzip', { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }, '\u001f\u008b\u0008', 415, 'unsupported_media_type'],
      ['UTF-16', { 'Content-Type': 'application/json; charset=utf-16' }, '{}', 415, 'unsupported_media_type'],
    ];
    if (!multipartRoutes.has(route.path)) {
      cases.push(['multipart on a JSON route', { 'Content-Type': 'multipart/form-data; boundary=X' }, '--X\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--X--\r\n', 415, 'unsupported_media_type']);
    }
    for (const [what, headers, body, status, code] of cases) {
      const answer = await send(route.method, path, { ...bearer(key), ...headers }, body);
      t.is(answer?.status, status, `${label}: ${what}`);
      t.is(answer?.body?.error?.code, code, `${label}: ${what}`);
      // The 415 names what the route takes: an upload route was told to send JSON.
      if (what === 'text/plain') t.regex(answer?.body?.error?.message ?? '', multipartRoutes.has(route.path) ? /multipart\/form-data/ : /^Send the request body as JSON/, label);
    }
  }
});

test('UTF-8 however it is spelt, the identity coding, and JSON types in any case or with other parameters are read as JSON', async (t) => {
  const route = bodyRoutes().find((candidate) => candidate.path === '/v1/companies/:company_id/payment-claim-accounts')!;
  for (const headers of [
    { 'Content-Type': 'application/json; charset="UTF-8"' },
    { 'Content-Type': 'application/json;charset=utf8', 'Content-Encoding': 'identity' },
    { 'Content-Type': 'APPLICATION/JSON' },
    { 'Content-Type': 'application/json ; foo=bar' },
    { 'Content-Type': 'application/merge-patch+json' },
  ] as Record<string, string>[]) {
    const answer = await send(route.method, concrete(route.path), { ...bearer(key), ...headers }, '{}');
    t.is(answer?.status, 400, JSON.stringify(headers));
    t.is(answer?.body?.error?.code, 'invalid_parameter', 'read, then refused for its missing fields');
  }
});

// Node keeps the first Content-Type and drops the rest: JSON first was read as JSON (201, an
// endpoint created) whatever the second said, while a proxy or WAF in front may read the other.
test('several Content-Type headers → 415 unsupported_media_type, and nothing is created', async (t) => {
  const body = JSON.stringify({ url: 'http://127.0.0.1:9/two-types', events: [] });
  for (const [first, second] of [['application/json', 'text/plain'], ['text/plain', 'application/json'], ['application/json', 'application/json']]) {
    const head = `POST /v1/companies/${companyId}/webhooks HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\nAuthorization: Bearer ${key}\r\nContent-Type: ${first}\r\nContent-Type: ${second}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
    const answer = await rawExchange(api.url, head + body);
    t.is(answer?.status, 415, `${first} + ${second}`);
    t.is(answer?.body.error.code, 'unsupported_media_type');
    t.regex(answer?.body.error.message ?? '', /one Content-Type header/);
  }
  const listed = await fetch(`${api.url}/v1/companies/${companyId}/webhooks`, { headers: bearer(key) });
  t.false(((await listed.json()) as { data: { url: string }[] }).data.some((endpoint) => endpoint.url.endsWith('/two-types')));
});

test('a JSON body that starts with a byte order mark is refused with a message that says so', async (t) => {
  const answer = await send('POST', `/v1/companies/${companyId}/payment-claim-accounts`, { ...bearer(key), 'Content-Type': 'application/json' }, Buffer.from('\uFEFF{}', 'utf8'));
  t.is(answer?.status, 400);
  t.is(answer?.body?.error?.code, 'invalid_json');
  t.is(answer?.body?.error?.message, 'The request body starts with a byte order mark (U+FEFF); send JSON without one (RFC 8259 §8.1).');
});

test('a JSON body that is not UTF-8 is refused, not stored with U+FFFD in place of its bytes', async (t) => {
  const path = `/v1/companies/${companyId}/payment-claim-accounts`;
  const claim = (number: string) => `{"number": "${number}", "issue_date": "2026-11-20", "total": "5"}`;
  const stored = () => api.database.db('documents').where({ company_id: companyId }).whereLike('number', 'UTF8-P%').pluck('number');
  for (const [what, bytes] of [
    ['Latin-1', Buffer.from(claim('UTF8-P\u00e9rez'), 'latin1')],
    ['a multi-byte character cut short', Buffer.from(Buffer.from(claim('UTF8-P\u00e9rez')).filter((byte) => byte !== 0xa9))],
  ] as const) {
    const answer = await send('POST', path, { ...bearer(key), 'Content-Type': 'application/json' }, bytes);
    t.is(answer?.status, 400, what);
    t.is(answer?.body?.error?.code, 'invalid_json', what);
    t.regex(answer?.body?.error?.message ?? '', /UTF-8/, what);
  }
  t.deepEqual(await stored(), [], 'nothing stored');
  const answer = await send('POST', path, { ...bearer(key), 'Content-Type': 'application/json' }, Buffer.from(claim('UTF8-P\u00e9rez'), 'utf8'));
  t.is(answer?.status, 201);
  t.deepEqual(await stored(), ['UTF8-P\u00e9rez'], 'the same name in UTF-8 is stored as sent');
});

async function rowCounts(): Promise<Record<string, number>> {
  const tables = await api.database.db('information_schema.tables').where({ table_schema: 'public' }).whereNot('table_name', 'like', 'knex_%').pluck('table_name');
  const counts: Record<string, number> = {};
  for (const table of tables as string[]) counts[table] = Number((await api.database.db(table).count({ n: '*' }))[0].n);
  return counts;
}

// Serial (ava runs it before the others): it counts every table's rows, and a concurrent test
// that stores a document on purpose (the UTF-8 one above) made it fail by timing.
test.serial('a JSON body aborted halfway stores nothing, on every route that takes a body', async (t) => {
  const before = await rowCounts();
  for (const route of bodyRoutes()) {
    const head = (length: number) =>
      `${route.method} ${concrete(route.path)} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: ${bearer(key).Authorization}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${length}\r\n\r\n{"name": "`;
    await abortedUpload(api.url, head, BODY_LIMIT - 10, 1024);
  }
  const health = await fetch(`${api.url}/healthz`);
  t.is(health.status, 200);
  t.deepEqual(await rowCounts(), before);
});

test('a request that does not arrive within the request timeout → 408 request_timeout', async (t) => {
  // Node's defaults are 300 s (whole request) checked every 30 s; shortened here.
  const server = createHttpServer(new Koa(), pino({ level: 'silent' }), { requestTimeout: 300, connectionsCheckingInterval: 50 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const answer = await rawExchange(url, 'GET /healthz HTTP/1.1\r\nHost: x\r\n'); // headers never end
    t.is(answer?.status, 408);
    t.is(answer?.body?.error?.code, 'request_timeout');
    t.regex(answer?.headers['x-request-id'] ?? '', /^req_[0-9a-f]{24}$/);
  } finally {
    server.close();
  }
});
