import test from 'ava';
import crypto from 'node:crypto';
import net from 'node:net';
import tls from 'node:tls';
import { loadPkcs12 } from '../../domain/dian/certificate';
import { buildSoapRequest, verifySoapSecurity } from '../../integrations/dian/soap';
import { createSoapDianGateway } from '../../integrations/dian/soap-gateway';
import { DianError } from '../../integrations/dian/port';
import { generateTestPkcs12 } from '../../testing/dian-certificates';

// `ssl3 ext invalid servername` from the WS-Security signature after a failed TLS connect: a TLS
// client given a server name OpenSSL refuses leaves the error on OpenSSL's queue and the next PEM
// parse in the thread reports it. Reproduced against a loopback port that resets every connection.
const LONG_HOST = `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.co`; // 259 characters

function credentials(commonName: string) {
  const { p12, password } = generateTestPkcs12('clave', { commonName });
  const { privateKeyPem, certificatePem } = loadPkcs12(p12, password);
  return { privateKeyPem, certificatePem };
}

let port: number;
let server: net.Server;
test.before(async () => {
  server = net.createServer((socket) => socket.once('data', () => socket.resetAndDestroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as net.AddressInfo).port;
});
test.after.always(() => server.close());

/**
 * Starts a TLS connect to the resetting port with a server name OpenSSL refuses; the stale error
 * is queued synchronously (setServername), so the caller's next statement sees it. Resolves when
 * the connection has failed.
 */
function failedTlsConnect(): Promise<string> {
  const socket = tls.connect({ host: '127.0.0.1', port, servername: LONG_HOST });
  return new Promise((resolve) => socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message)));
}

test.serial('the mechanism: after such a connect, the next PEM parse in the thread fails with the stale TLS error', async (t) => {
  const { privateKeyPem } = credentials('Testigo');
  const failed = failedTlsConnect();
  const error = t.throws(() => crypto.createPrivateKey(privateKeyPem));
  t.regex(error?.message ?? '', /ssl3 ext invalid servername/);
  t.notThrows(() => crypto.createPrivateKey(privateKeyPem), 'the failed parse consumed the stale entry');
  t.is(await failed, 'ECONNRESET');
});

test.serial('the WS-Security signature is made after a failed TLS connect, with a key seen before or a new one', async (t) => {
  const known = credentials('Conocida');
  buildSoapRequest('GetStatusEvent', { trackId: 'a'.repeat(96) }, known, 'https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc');
  for (const signer of [known, credentials('Nueva')]) {
    const failed = failedTlsConnect();
    const request = buildSoapRequest('GetStatusEvent', { trackId: 'a'.repeat(96) }, signer, 'https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc');
    t.true(verifySoapSecurity(request.envelope).valid);
    await failed;
  }
});

test.serial('the gateway refuses a host name no DNS name can have before any TLS connect, and later calls still sign', async (t) => {
  const signer = credentials('Pasarela');
  const gateway = createSoapDianGateway({ url: `https://${LONG_HOST}:${port}/WcfDianCustomerServices.svc`, credentials: signer, timeoutMs: 3_000 });
  for (let attempt = 0; attempt < 2; attempt++) {
    const error = await t.throwsAsync(gateway.getStatusEvent('a'.repeat(96)), { instanceOf: DianError });
    t.is(error?.code, 'unavailable');
    t.false(error?.retryable);
    t.regex(error?.message ?? '', /not a valid DNS name/);
  }
  const reachable = createSoapDianGateway({ url: `https://127.0.0.1:${port}/WcfDianCustomerServices.svc`, credentials: signer, timeoutMs: 3_000 });
  const error = await t.throwsAsync(reachable.getStatusEvent('a'.repeat(96)), { instanceOf: DianError });
  t.regex(error?.message ?? '', /unreachable: fetch failed/, 'a transport failure, not an OpenSSL one');
});
