import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import Koa from 'koa';
import Router from '@koa/router';
import pino from 'pino';
import { errorHandler } from '../../api/middleware/error-handler';
import { requestId } from '../../api/middleware/request-id';
import { jsonBody } from '../../api/middleware/json-body';
import { loadConfig } from '../../config';

// The JSON body reader is shared by every route that takes JSON; it is exercised here on a
// small app with the real middleware chain, since the spine's own routes take no body.
let url: string;
let server: http.Server;
const LIMIT = 2048;

test.before(async () => {
  const app = new Koa();
  app.silent = true;
  const router = new Router();
  router.post('/echo', (ctx) => {
    ctx.body = { received: ctx.request.body ?? null };
  });
  app.use(requestId()).use(errorHandler(pino({ level: 'silent' }))).use(jsonBody(LIMIT, loadConfig({}).http.bodyPace)).use(router.routes());
  server = http.createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/echo`;
});
test.after.always(() => server?.close());

async function post(body: string, contentType = 'application/json') {
  const response = await fetch(url, { method: 'POST', headers: { 'Content-Type': contentType }, body });
  return { status: response.status, body: (await response.json()) as Record<string, any>, headers: response.headers };
}

test('valid JSON reaches the route', async (t) => {
  const result = await post('{"enabled": true}');
  t.is(result.status, 200);
  t.deepEqual(result.body, { received: { enabled: true } });
});

test('broken JSON → 400 invalid_json', async (t) => {
  const result = await post('{"enabled": tru');
  t.is(result.status, 400);
  t.is(result.body.error.code, 'invalid_json');
  t.truthy(result.headers.get('x-request-id'));
});

test('a body that is not JSON → 415 unsupported_media_type', async (t) => {
  const result = await post('enabled=true', 'application/x-www-form-urlencoded');
  t.is(result.status, 415);
  t.is(result.body.error.code, 'unsupported_media_type');
});

test('a body over the limit → 413 payload_too_large', async (t) => {
  const result = await post(JSON.stringify({ padding: 'x'.repeat(LIMIT * 2) }));
  t.is(result.status, 413);
  t.is(result.body.error.code, 'payload_too_large');
});

test('a chunked body over the limit is also refused', async (t) => {
  const status = await new Promise<number>((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'Content-Type': 'application/json' } }, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on('error', reject);
    request.write('{"padding": "');
    request.write('y'.repeat(LIMIT * 2));
    request.end('"}');
  });
  t.is(status, 413);
});

test('application/*+json types are JSON too', async (t) => {
  const result = await post('{"a": 1}', 'application/merge-patch+json');
  t.is(result.status, 200);
});
