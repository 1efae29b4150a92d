import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import pino from 'pino';
import { errorHandler } from '../../api/middleware/error-handler';
import { holdingUploadMemory, prepareUploadMemory } from '../../api/middleware/upload-memory';
import { FileMemoryBudget } from '../../services/file-memory-budget';

// An upload holds its declared size of the API's upload budget while its route runs; one that
// finds no room waits, its body unread, and after the wait is answered 503 with Retry-After.
const KiB = 1024;

async function server(budget: FileMemoryBudget, waitMs: number, routeMs: number) {
  const app = new Koa();
  app.silent = true;
  app.use(errorHandler(pino({ level: 'silent' })));
  app.use(holdingUploadMemory(budget, waitMs));
  app.use(async (ctx) => {
    await new Promise((resolve) => setTimeout(resolve, routeMs));
    ctx.req.resume();
    ctx.status = 202;
    ctx.body = { ok: true };
  });
  const listener = http.createServer(app.callback());
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => listener.close(() => resolve())) };
}

const post = (url: string, bytes: number) =>
  fetch(url, { method: 'POST', headers: { 'Content-Type': 'multipart/form-data; boundary=X' }, body: new Uint8Array(bytes) }).then(async (response) => ({
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body: (await response.json()) as { error?: { code: string; message: string } },
  }));

test('uploads within the budget run side by side; one that finds no room within the wait is 503 service_unavailable with Retry-After', async (t) => {
  const budget = new FileMemoryBudget(1024 * KiB);
  const { url, close } = await server(budget, 300, 1_000);
  try {
    const started = Date.now();
    const [large, small, refused] = await Promise.all([
      post(url, 900 * KiB),
      new Promise((resolve) => setTimeout(resolve, 50)).then(() => post(url, 20 * KiB)),
      new Promise((resolve) => setTimeout(resolve, 100)).then(() => post(url, 600 * KiB)),
    ]);
    t.is(large.status, 202);
    t.is(small.status, 202, 'a small upload fits beside the large one');
    t.is(refused.status, 503);
    t.is(refused.body.error?.code, 'service_unavailable');
    t.regex(refused.body.error?.message ?? '', /nothing was stored/);
    t.is(refused.retryAfter, '5');
    t.true(Date.now() - started < 2_000);
    // The room is back once the large upload's route ended.
    t.is((await post(url, 600 * KiB)).status, 202);
    t.is(budget.available(), 1024 * KiB);
  } finally {
    await close();
  }
});

test('an upload that waits and gets room within the wait runs', async (t) => {
  const budget = new FileMemoryBudget(1024 * KiB);
  const { url, close } = await server(budget, 2_000, 300);
  try {
    const [first, second] = await Promise.all([post(url, 900 * KiB), new Promise((resolve) => setTimeout(resolve, 50)).then(() => post(url, 900 * KiB))]);
    t.deepEqual([first.status, second.status], [202, 202]);
  } finally {
    await close();
  }
});

test('a malformed API_UPLOADS_MEMORY_MB or API_UPLOADS_WAIT_MS stops the API at start', (t) => {
  t.notThrows(() => prepareUploadMemory({ API_UPLOADS_MEMORY_MB: '256', API_UPLOADS_WAIT_MS: '1000' }));
  t.throws(() => prepareUploadMemory({ API_UPLOADS_MEMORY_MB: 'lots' }));
  t.throws(() => prepareUploadMemory({ API_UPLOADS_MEMORY_MB: '0' }));
  t.throws(() => prepareUploadMemory({ API_UPLOADS_WAIT_MS: '-1' }));
});
