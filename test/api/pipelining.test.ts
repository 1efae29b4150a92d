import net from 'node:net';
import test from 'ava';
import { MAX_PIPELINED_REQUESTS } from '../../api/middleware/pipelining-limit';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';

// HTTP/1.1 pipelining: a client may send requests before reading the answers, but one that
// sends thousands and reads none made the API handle and hold every one of them (five such
// connections: 1.8 GB and 25 s without answering anyone, before 2026-11-25).

let api: TestApi;
let key: string;

test.before(async () => {
  api = await startTestApi();
  await seedCompany(api.database);
  key = (await seedKey(api.database, { scopes: ['documents:read'] })).key;
});
test.after.always(async () => api?.close());

/** Sends `count` requests on one connection at once; resolves with what came back and whether the server closed it. */
function pipelined(count: number, read: boolean): Promise<{ answers: number; closedByServer: boolean }> {
  const { port } = new URL(api.url);
  const request = `GET /v1/me HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${bearer(key).Authorization}\r\n\r\n`;
  return new Promise((resolve) => {
    const socket = net.connect(Number(port), '127.0.0.1');
    let received = '';
    let closedByServer = false;
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
    // A paused socket does not notice its peer closing: it reads again after a while, and what
    // the server had answered by then arrives before the close.
    if (!read) {
      socket.pause();
      setTimeout(() => socket.resume(), 3_000);
    }
    socket.on('error', () => undefined); // a reset: the server closed it with requests unread
    socket.on('close', () => {
      closedByServer = true;
      clearTimeout(deadline);
      finish();
    });
    const finish = () => {
      resolve({ answers: received.split('HTTP/1.1 ').length - 1, closedByServer });
      socket.destroy();
    };
    const deadline = setTimeout(finish, 10_000);
    socket.write(request.repeat(count));
  });
}

test.serial('a connection with thousands of pipelined requests it never reads is closed', async (t) => {
  const { answers, closedByServer } = await pipelined(5_000, false);
  t.true(closedByServer, 'the connection was still open after 10 s');
  t.true(answers <= MAX_PIPELINED_REQUESTS, `${answers} answers`);
  const health = await fetch(`${api.url}/healthz`);
  t.is(health.status, 200);
});

test.serial('a client that pipelines within the limit gets every answer, in order', async (t) => {
  const started = pipelined(MAX_PIPELINED_REQUESTS, true);
  // All answered, then the connection stays open (keep-alive) until the test's deadline.
  const { answers } = await started;
  t.is(answers, MAX_PIPELINED_REQUESTS);
});
