import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { collectDefaultMetrics, register } from 'prom-client';

let defaultsCollected = false;

/** Process metrics (CPU, memory, GC, event-loop lag) once per process, in prom-client's registry. */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register });
}

export type MetricsServer = { url: string; close(): Promise<void> };

/**
 * Serves GET /metrics (Prometheus text format) on a port of its own, never the public API port.
 * Port 0 in the configuration means off (undefined); tests pass `listenPort: 0` for a free port.
 */
export async function startMetricsServer(options: { port: number; host: string; listenPort?: number }): Promise<MetricsServer | undefined> {
  if (options.port === 0 && options.listenPort === undefined) return undefined;
  collectProcessMetrics();
  const server: Server = createServer((request, response) => {
    if (request.method !== 'GET' || request.url?.split('?')[0] !== '/metrics') {
      response.writeHead(404).end();
      return;
    }
    register.metrics().then(
      (text) => response.writeHead(200, { 'Content-Type': register.contentType }).end(text),
      (error: Error) => response.writeHead(500).end(error.message),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.listenPort ?? options.port, options.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}/metrics`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
