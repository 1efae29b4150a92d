import net from 'node:net';
import { Transform } from 'node:stream';

/**
 * A TCP relay on loopback to `target` that carries what the client sends at `bytesPerSecond`
 * (answers come back at full speed): a store that is slow but never stops. Resolves with its url.
 */
export async function startSlowLink(target: string, bytesPerSecond: number): Promise<{ url: string; close(): Promise<void> }> {
  const { hostname, port } = new URL(target);
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => undefined).on('close', () => sockets.delete(socket));
    }
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    const paced = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        setTimeout(() => done(null, chunk), (chunk.length / bytesPerSecond) * 1000);
      },
    });
    client.pipe(paced).pipe(upstream);
    upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port: linkPort } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${linkPort}`,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
