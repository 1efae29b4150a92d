import net from 'node:net';
import { SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS, type ErrorBody } from '../../api/errors';

export type Backend = { host: string; port: number };

export type TcpBalancer = { url: string; port: number; close(): Promise<void> };

/**
 * The load balancer of `npm run start:cluster`: one public port in front of the API replicas,
 * connection by connection in turn (round robin at layer 4, like a cloud TCP load balancer; an
 * HTTP keep-alive connection stays on the replica that accepted it). A replica that refuses the
 * connection (restarting after a crash) is skipped for that connection, so a client notices a
 * dead replica only when every replica is down: then it gets the API's own 503
 * `service_unavailable` answer (as a cloud load balancer answers 503 with no healthy target),
 * not a reset — a bare reset made Node's fetch wait forever on some runs instead of failing.
 */
export async function startTcpBalancer(options: { host: string; port: number; backends: Backend[] }): Promise<TcpBalancer> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const track = (socket: net.Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  };

  const connectToAnyBackend = (client: net.Socket, tried: number) => {
    if (tried >= options.backends.length) {
      answerServiceUnavailable(client);
      return;
    }
    const backend = options.backends[next++ % options.backends.length]!;
    const upstream = net.connect(backend.port, backend.host);
    track(upstream);
    let connected = false;
    upstream.on('error', () => (connected ? client.destroy() : connectToAnyBackend(client, tried + 1)));
    upstream.once('connect', () => {
      connected = true;
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    track(client);
    client.on('error', () => undefined);
    connectToAnyBackend(client, 0);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
}

/** Milliseconds the balancer leaves a client to read its 503 before dropping the connection. */
const UNAVAILABLE_ANSWER_GRACE_MS = 5_000;

/** Answers the connection's first request with 503 service_unavailable, then closes it. */
function answerServiceUnavailable(client: net.Socket): void {
  const error: ErrorBody = {
    error: { code: 'service_unavailable', message: `No API replica is accepting connections. Retry in ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS} seconds.` },
  };
  const body = JSON.stringify(error);
  // Reading what the client sent before closing: closing with unread bytes resets the
  // connection, and a reset can discard the answer before the client reads it.
  client.on('data', () => undefined);
  client.resume();
  client.end(
    'HTTP/1.1 503 Service Unavailable\r\n' +
      'content-type: application/json; charset=utf-8\r\n' +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `retry-after: ${SERVICE_UNAVAILABLE_RETRY_AFTER_SECONDS}\r\n` +
      'connection: close\r\n\r\n' +
      body,
  );
  setTimeout(() => client.destroy(), UNAVAILABLE_ANSWER_GRACE_MS).unref();
}
