import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { DianError } from '../../integrations/dian/port';
import { createSoapDianGateway, DIAN_MAX_ANSWER_BYTES } from '../../integrations/dian/soap-gateway';
import { loadPkcs12 } from '../../domain/dian/certificate';
import { generateTestPkcs12 } from '../../testing/dian-certificates';

// DIAN's address comes from the deployment, but what answers there (a broken proxy, a captive
// portal, a hostile network) is not ours: its answer is read up to a limit, and its redirects
// are not followed with the signed envelope.
const { p12, password } = generateTestPkcs12('clave-de-prueba', { commonName: 'Comprador de pruebas' });
const credentials = loadPkcs12(p12, password);
const CUFE = 'b'.repeat(96);

async function listen(t: import('ava').ExecutionContext, handler: http.RequestListener): Promise<string> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/WcfDianCustomerServices.svc`;
}

test('an answer larger than the limit is not read: the connection is dropped and the call fails at once', async (t) => {
  const announced = 200 * 1024 * 1024;
  let written = 0;
  let dropped!: () => void;
  const closed = new Promise<void>((resolve) => (dropped = resolve));
  const url = await listen(t, (request, response) => {
    request.resume();
    response.writeHead(200, { 'content-type': 'application/soap+xml', 'content-length': String(announced) });
    const chunk = Buffer.alloc(256 * 1024, 0x20);
    const pump = () => {
      while (!response.destroyed && written < announced) {
        written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      if (written >= announced) response.end();
    };
    response.on('close', dropped);
    pump();
  });
  const gateway = createSoapDianGateway({ url, credentials, timeoutMs: 20_000 });
  const error = await t.throwsAsync(gateway.getStatusEvent(CUFE), { instanceOf: DianError });
  t.is(error.code, 'invalid_response');
  t.regex(error.message, new RegExp(`more than ${DIAN_MAX_ANSWER_BYTES} bytes`));
  await closed;
  t.log(`the upstream wrote ${(written / 1024 / 1024).toFixed(1)} MiB of its ${announced / 1024 / 1024} MiB before the connection was dropped`);
  t.true(written < DIAN_MAX_ANSWER_BYTES + 16 * 1024 * 1024, `wrote ${written} bytes`);
});

test('a redirect is not followed: the signed envelope never reaches the address it names', async (t) => {
  let elsewhere = 0;
  const target = await listen(t, (request, response) => {
    elsewhere += 1;
    request.resume();
    response.end();
  });
  for (const status of [301, 302, 307, 308]) {
    const url = await listen(t, (request, response) => {
      request.resume();
      response.writeHead(status, { location: target });
      response.end();
    });
    const gateway = createSoapDianGateway({ url, credentials, timeoutMs: 5_000 });
    const error = await t.throwsAsync(gateway.getStatusEvent(CUFE), { instanceOf: DianError });
    t.is(error.code, 'unavailable', `HTTP ${status}`);
    t.regex(error.message, new RegExp(`HTTP ${status}; redirects are not followed`));
  }
  t.is(elsewhere, 0);
});
