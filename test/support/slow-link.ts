import net from 'node:net';
import { Transform } from 'node:stream';

type Relay = { url: string; close(): Promise<void> };

/**
 * A TCP relay on loopback to `target` that carries what the client sends at `bytesPerSecond`
 * (answers come back at full speed): a store that is slow but never stops. Resolves with its url.
 */
export async function startSlowLink(target: string, bytesPerSecond: number): Promise<Relay> {
  return startRelay(target, (client, upstream) => {
    const paced = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        setTimeout(() => done(null, chunk), (chunk.length / bytesPerSecond) * 1000);
      },
    });
    client.pipe(paced).pipe(upstream);
    upstream.pipe(client);
  });
}

/**
 * A TCP relay on loopback to `target` that, while `trickle(true)`, hands the store's answers to
 * the client one byte every `intervalMs` (what the client sends goes at full speed): a store, or
 * a proxy in front of it, that never goes silent long enough for an idle deadline and never
 * finishes. `trickle(false)` sends what is held back at once and relays at full speed again.
 */
export async function startTricklingLink(target: string, intervalMs = 2_000): Promise<Relay & { trickle(on: boolean): void }> {
  let trickling = false;
  const flushes = new Set<() => void>();
  const relay = await startRelay(target, (client, upstream) => {
    const held: Buffer[] = [];
    let dripping: NodeJS.Timeout | undefined;
    const drip = () => {
      dripping = undefined;
      if (!trickling) return flush();
      const head = held[0];
      if (!head) return;
      client.write(head.subarray(0, 1));
      if (head.length > 1) held[0] = head.subarray(1);
      else held.shift();
      if (held.length > 0) dripping = setTimeout(drip, intervalMs);
    };
    const flush = () => {
      clearTimeout(dripping);
      dripping = undefined;
      if (held.length > 0) client.write(Buffer.concat(held.splice(0)));
    };
    flushes.add(flush);
    client.on('close', () => {
      clearTimeout(dripping);
      flushes.delete(flush);
    });
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (!trickling && held.length === 0) return void client.write(chunk);
      held.push(chunk);
      if (!dripping) dripping = setTimeout(drip, intervalMs);
    });
  });
  return {
    ...relay,
    trickle(on: boolean) {
      trickling = on;
      if (!on) for (const flush of flushes) flush();
    },
  };
}

/** A TCP relay on loopback to `target`; `wire` connects each client to its own upstream connection. */
async function startRelay(target: string, wire: (client: net.Socket, upstream: net.Socket) => void): Promise<Relay> {
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
    wire(client, upstream);
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
