import fs from 'node:fs';
import net from 'node:net';
import test from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { eventually } from '../support/eventually';

// A client that asks for a download and never reads it: the answer is closed once it has gone
// API_RESPONSE_IDLE_TIMEOUT_MS without the client taking a byte, releasing the socket and the
// stored file (both were held for as long as the client liked before 2026-11-25).

const IDLE_MS = 2_000;
let api: TestApi;
let key: string;
let companyId: number;

test.before(async () => {
  api = await startTestApi({ API_RESPONSE_IDLE_TIMEOUT_MS: String(IDLE_MS) });
  companyId = (await seedCompany(api.database)).id;
  key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write'] })).key;
});
test.after.always(async () => api?.close());

function blobDirectory(): string {
  const store = api.config.blobStore;
  if (store.driver !== 'filesystem') throw new Error('these tests serve downloads from the filesystem store');
  return store.directory;
}

/** Descriptors of this process (the API runs in it) open on a file of the blob store. */
function openBlobFiles(): string[] {
  const open: string[] = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(blobDirectory())) open.push(target);
    } catch {
      // closed between the listing and the read
    }
  }
  return open;
}

/** A 19 MiB PDF upload (more than loopback's socket buffers hold), and its signed download path. */
async function storedDownload(): Promise<string> {
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(19 * 1024 * 1024, 0x20), Buffer.from('\n%%EOF\n')]);
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(pdf)]), 'big.pdf');
  const upload = await fetch(`${api.url}/v1/companies/${companyId}/files`, { method: 'POST', headers: bearer(key), body: form });
  const file = (await upload.json()) as { id: number };
  if (upload.status !== 202) throw new Error(`upload answered ${upload.status}: ${JSON.stringify(file)}`);
  const redirect = await fetch(`${api.url}/v1/companies/${companyId}/files/${file.id}/content`, { headers: bearer(key), redirect: 'manual' });
  const location = new URL(redirect.headers.get('location')!);
  return `${location.pathname}${location.search}`;
}

/** Sends the request and reads nothing; resolves when the server closes the connection. */
function neverRead(path: string): { socket: net.Socket; closed: Promise<number> } {
  const { port } = new URL(api.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  socket.pause();
  const started = Date.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  socket.on('error', () => undefined); // the reset of a closed connection
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  return { socket, closed };
}

test.serial('a download its client never reads is closed after the idle deadline, and its file is closed', async (t) => {
  const path = await storedDownload();
  const clients = [1, 2, 3].map(() => neverRead(path));
  await eventually(() => (openBlobFiles().length === 3 ? true : undefined), 5_000);
  // The server closes its side; the client notices once it reads what was sent before the close.
  await eventually(() => (openBlobFiles().length === 0 ? true : undefined), 10_000);
  for (const { socket } of clients) socket.resume();
  const closedAfter = await Promise.all(clients.map(({ closed }) => closed));
  for (const ms of closedAfter) t.true(ms < 10_000, `closed after ${ms} ms`);
  t.deepEqual(openBlobFiles(), []);
});

test.serial('a reader slower than the download takes to send, but steady, gets all of it: the deadline is on silence, not on the whole answer', async (t) => {
  const path = await storedDownload();
  const { port } = new URL(api.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  let received = 0;
  const done = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.on('data', (chunk: Buffer) => {
    received += chunk.length;
    // About 2.5 MB/s: some 8 s for the whole file, four times the deadline.
    socket.pause();
    setTimeout(() => socket.resume(), 25);
  });
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
  const started = Date.now();
  await done;
  t.true(received > 19 * 1024 * 1024, `received ${received} bytes`);
  t.true(Date.now() - started > IDLE_MS, `took ${Date.now() - started} ms`);
});
