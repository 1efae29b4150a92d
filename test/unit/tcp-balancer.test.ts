import http from 'node:http';
import type { AddressInfo } from 'node:net';
import test from 'ava';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS } from '../../api/errors';
import { startTcpBalancer } from '../../scripts/embedded/tcp-balancer';

// npm run start:cluster's balancer in front of its API replicas, with real sockets on loopback.

async function replica(name: string) {
  const server = http.createServer((_request, response) => response.end(name));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, backend: { host: '127.0.0.1', port: (server.address() as AddressInfo).port } };
}

/** One request on a connection of its own (no keep-alive: the balancer picks per connection). */
async function ask(url: string): Promise<string> {
  const response = await fetch(url, { headers: { connection: 'close' }, signal: AbortSignal.timeout(10_000) });
  return response.text();
}

test('connections go to the replicas in turn, and a replica that refuses is skipped', async (t) => {
  const [a, b] = [await replica('a'), await replica('b')];
  const balancer = await startTcpBalancer({ host: '127.0.0.1', port: 0, backends: [a.backend, b.backend] });
  try {
    const answers = [];
    for (let i = 0; i < 4; i += 1) answers.push(await ask(balancer.url));
    t.deepEqual(answers.sort(), ['a', 'a', 'b', 'b']);

    a.server.closeAllConnections();
    await new Promise((resolve) => a.server.close(resolve));
    const afterStop = [];
    for (let i = 0; i < 4; i += 1) afterStop.push(await ask(balancer.url));
    t.deepEqual(afterStop, ['b', 'b', 'b', 'b']);
  } finally {
    await balancer.close();
    b.server.closeAllConnections();
    await new Promise((resolve) => b.server.close(resolve));
  }
});

test('with every replica down, the client gets 503 service_unavailable instead of a hang', async (t) => {
  // Ports nothing listens on here (the suite's unreachable webhook target is 127.0.0.1:9): a port
  // from freePort() can be taken by a parallel test file's server before the balancer dials it.
  const balancer = await startTcpBalancer({ host: '127.0.0.1', port: 0, backends: [{ host: '127.0.0.1', port: 9 }, { host: '127.0.0.1', port: 1 }] });
  try {
    for (let i = 0; i < 3; i += 1) {
      const response = await fetch(`${balancer.url}/v1/companies`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"x"}', signal: AbortSignal.timeout(10_000) });
      t.is(response.status, 503);
      t.is(response.headers.get('retry-after'), String(SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS));
      const body = (await response.json()) as { error: { code: string; message: string } };
      t.is(body.error.code, 'service_unavailable');
      t.regex(body.error.message, /No API replica/);
    }
  } finally {
    await balancer.close();
  }
});
