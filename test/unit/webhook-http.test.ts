import test from 'ava';
import dns from 'node:dns';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { postWebhook } from '../../activities/webhook-http';
import { startReceiver } from '../support/receiver';
import { NON_PUBLIC_HOSTS } from '../support/ssrf-hosts';

const headers = { 'content-type': 'application/json', 'webhook-id': 'evt_1' };

test('posts the exact body and headers, and reports 2xx as success', async (t) => {
  const receiver = await startReceiver(() => ({ status: 202 }));
  try {
    const outcome = await postWebhook(receiver.url, headers, '{"a":1}', { timeoutMs: 2000, allowPrivateTargets: true });
    t.like(outcome, { statusCode: 202, error: null, succeeded: true });
    t.is(receiver.received[0].body, '{"a":1}');
    t.is(receiver.received[0].headers['webhook-id'], 'evt_1');
  } finally {
    await receiver.close();
  }
});

test('without private targets, loopback is refused at connect time by name and by literal address', async (t) => {
  const receiver = await startReceiver();
  try {
    const port = new URL(receiver.url).port;
    for (const url of [`http://localhost:${port}/hooks`, `http://127.0.0.1:${port}/hooks`, `http://[::1]:${port}/hooks`]) {
      const outcome = await postWebhook(url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: false });
      t.false(outcome.succeeded, url);
      t.regex(outcome.error ?? '', /ETARGETBLOCKED|non-public|not a public/, url);
    }
    t.is(receiver.received.length, 0);
  } finally {
    await receiver.close();
  }
});

test('a name that resolves to a non-public address at connect time is blocked, and last_error does not tell the address', async (t) => {
  const receiver = await startReceiver();
  const original = dns.lookup;
  // An internal name (or one rebound since registration) that resolves to the receiver's loopback.
  (dns as { lookup: unknown }).lookup = (host: string, options: unknown, callback: (...args: unknown[]) => void) => {
    if (host !== 'internal-db.test') return (original as (...args: unknown[]) => void)(host, options, callback);
    process.nextTick(() => callback(null, [{ address: '127.0.0.1', family: 4 }]));
  };
  try {
    const port = new URL(receiver.url).port;
    const outcome = await postWebhook(`http://internal-db.test:${port}/hooks`, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: false });
    t.like(outcome, { statusCode: null, succeeded: false });
    t.regex(outcome.error ?? '', /^ETARGETBLOCKED: internal-db\.test resolves to a non-public address$/);
    t.false((outcome.error ?? '').includes('127.0.0.1'));
    t.is(receiver.received.length, 0);
  } finally {
    (dns as { lookup: unknown }).lookup = original;
    await receiver.close();
  }
});

test('without private targets, every non-public host form is refused before connecting', async (t) => {
  const receiver = await startReceiver();
  try {
    const port = new URL(receiver.url).port;
    for (const host of NON_PUBLIC_HOSTS) {
      const url = `http://${host}:${port}/hooks`;
      const outcome = await postWebhook(url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: false });
      t.like(outcome, { statusCode: null, succeeded: false }, url);
      t.regex(outcome.error ?? '', /^ETARGETBLOCKED/, url);
    }
    t.is(receiver.received.length, 0, 'nothing reached the loopback receiver');
  } finally {
    await receiver.close();
  }
});

test('an error answer keeps at most 1 KB of its body for last_error', async (t) => {
  const receiver = await startReceiver(() => ({ status: 500 }));
  try {
    const outcome = await postWebhook(receiver.url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: true });
    t.like(outcome, { statusCode: 500, succeeded: false });
    t.regex(outcome.error ?? '', /^HTTP 500: receiver says 500$/);
  } finally {
    await receiver.close();
  }
});

test('connection refused is a network failure', async (t) => {
  const receiver = await startReceiver();
  const url = receiver.url;
  await receiver.close();
  const outcome = await postWebhook(url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: true });
  t.like(outcome, { statusCode: null, succeeded: false });
  t.regex(outcome.error ?? '', /ECONNREFUSED/);
});

/** A loopback server that counts the connections it accepted; `onRequest` may answer or cut the connection. */
async function countingServer(onRequest: (req: http.IncomingMessage, res: http.ServerResponse, requestOnConnection: number) => void) {
  let connections = 0;
  const bodies: string[] = [];
  const server = http.createServer((req, res) => {
    const socket = req.socket as typeof req.socket & { requests?: number };
    socket.requests = (socket.requests ?? 0) + 1;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      onRequest(req, res, socket.requests!);
    });
  });
  server.on('connection', () => (connections += 1));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    bodies,
    connections: () => connections,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

test('deliveries to the same endpoint reuse one kept-alive connection', async (t) => {
  const server = await countingServer((_req, res) => res.writeHead(200).end('ok'));
  try {
    for (let i = 0; i < 5; i += 1) {
      const outcome = await postWebhook(server.url, headers, `{"n":${i}}`, { timeoutMs: 2000, allowPrivateTargets: true });
      t.like(outcome, { statusCode: 200, error: null, succeeded: true });
    }
    t.deepEqual(server.bodies, [0, 1, 2, 3, 4].map((i) => `{"n":${i}}`));
    t.is(server.connections(), 1);
  } finally {
    await server.close();
  }
});

test('a kept-alive connection the server drops is replaced: the POST is sent again on a new one and succeeds', async (t) => {
  // The server cuts every connection at its second request without answering: the reused socket fails with ECONNRESET.
  const server = await countingServer((req, res, requestOnConnection) => {
    if (requestOnConnection === 1) res.writeHead(204).end();
    else req.socket.resetAndDestroy();
  });
  try {
    t.like(await postWebhook(server.url, headers, '{"n":1}', { timeoutMs: 2000, allowPrivateTargets: true }), { statusCode: 204, succeeded: true });
    t.like(await postWebhook(server.url, headers, '{"n":2}', { timeoutMs: 2000, allowPrivateTargets: true }), { statusCode: 204, succeeded: true });
    t.is(server.connections(), 2);
  } finally {
    await server.close();
  }
});

test('an error answer read only in part (1 KB of a long body) does not leave its connection for the next delivery', async (t) => {
  const server = await countingServer((_req, res) => res.writeHead(503).end('busy '.repeat(200_000)));
  try {
    for (let i = 0; i < 2; i += 1) {
      const outcome = await postWebhook(server.url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: true });
      t.like(outcome, { statusCode: 503, succeeded: false });
      t.true((outcome.error ?? '').length <= 'HTTP 503: '.length + 1024);
    }
    t.is(server.connections(), 2);
  } finally {
    await server.close();
  }
});

test('an error answer with a NUL and other control characters in its body is kept as plain text (Postgres could not store a NUL)', async (t) => {
  const server = await countingServer((_req, res) => res.writeHead(500, { 'content-type': 'text/plain' }).end('bad\u0000thing\u0001\u001b[31m happened\r\n\u007f'));
  try {
    const outcome = await postWebhook(server.url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: true });
    t.like(outcome, { statusCode: 500, succeeded: false });
    t.is(outcome.error, 'HTTP 500: bad thing [31m happened');
  } finally {
    await server.close();
  }
});

/** A peer that reads the request and writes `answer` as is. */
async function rawPeer(answer: string): Promise<{ url: string; close(): void }> {
  const server = net.createServer((socket) => {
    socket.on('error', () => undefined);
    socket.once('data', () => socket.write(answer));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, close: () => server.close() };
}

test('a redirect keeps at most 1 KB of its Location in last_error', async (t) => {
  const peer = await rawPeer(`HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/${'a'.repeat(15_000)}\r\nContent-Length: 0\r\n\r\n`);
  try {
    const outcome = await postWebhook(peer.url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: true });
    t.like(outcome, { statusCode: 302, succeeded: false });
    t.regex(outcome.error ?? '', /^HTTP 302: redirects are not followed \(Location: http:\/\/169\.254\.169\.254\/a+…\)$/);
    t.true((outcome.error ?? '').length < 1_100, `${outcome.error?.length} characters`);
  } finally {
    peer.close();
  }
});

test('a 101 Switching Protocols fails the attempt at once, not at its timeout', async (t) => {
  const peer = await rawPeer('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n');
  try {
    const outcome = await postWebhook(peer.url, headers, '{}', { timeoutMs: 5000, allowPrivateTargets: true });
    t.like(outcome, { statusCode: 101, succeeded: false, error: 'HTTP 101: switching protocols is refused' });
    t.true(outcome.durationMs < 1_000, `${outcome.durationMs} ms`);
  } finally {
    peer.close();
  }
});

test('a 2xx with an endless body succeeds, and its body is drained only up to 64 KB before the connection is dropped', async (t) => {
  let written = 0;
  let dropped!: () => void;
  const closed = new Promise<void>((resolve) => (dropped = resolve));
  const server = http.createServer((request, response) => {
    request.resume();
    response.writeHead(200);
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!response.destroyed) {
        written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
    };
    response.on('close', dropped);
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const outcome = await postWebhook(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, headers, '{}', { timeoutMs: 5000, allowPrivateTargets: true });
    t.like(outcome, { statusCode: 200, succeeded: true, error: null });
    await closed;
    t.log(`the receiver wrote ${(written / 1024 / 1024).toFixed(1)} MiB before its connection was dropped`);
    t.true(written < 16 * 1024 * 1024, `${written} bytes`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('an error answer whose body never ends keeps its status at the deadline, not just "timed out"', async (t) => {
  const server = http.createServer((_req, res) => {
    res.writeHead(503, { 'retry-after': '120', 'content-type': 'text/plain' });
    res.write('maintenance until '); // and never ends
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
    const outcome = await postWebhook(url, headers, '{}', { timeoutMs: 500, allowPrivateTargets: true });
    t.like(outcome, { statusCode: 503, succeeded: false });
    t.regex(outcome.error ?? '', /^HTTP 503: maintenance until \(the answer's body did not end within 0.5 s\)$/);
    t.true(outcome.durationMs >= 450 && outcome.durationMs < 2_000, `${outcome.durationMs} ms`);
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});
