import net from 'node:net';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export function isListening(port: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host, () => {
      socket.end();
      resolve(true);
    });
    socket.on('error', () => resolve(false));
  });
}

export async function waitForPort(port: number, timeoutMs: number, host = '127.0.0.1'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await isListening(port, host)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`nothing listened on ${host}:${port} within ${timeoutMs} ms`);
}

/** A free loopback port in [low, high), tried at random (the kernel's own picks are all ≥ 32768 on Linux). */
export async function freePortBetween(low: number, high: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const candidate = low + Math.floor(Math.random() * (high - low));
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(candidate, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return candidate;
  }
  throw new Error(`no free port found between ${low} and ${high}`);
}

/** `count` different free loopback ports in [low, high) (each picked free and released, so two picks could otherwise be one port). */
export async function freePortsBetween(count: number, low: number, high: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePortBetween(low, high));
  return [...ports];
}
