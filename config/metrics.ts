import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { collectDefaultMetrics, Histogram, register } from 'prom-client';

let defaultsCollected = false;

/**
 * Process metrics (CPU, memory, GC, event-loop lag and its percentiles) once per process, in
 * prom-client's registry, plus the event-loop delay as a histogram.
 */
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register });
  watchEventLoopDelay();
}

const SAMPLING_MS = 10;

/**
 * nodejs_eventloop_delay_seconds: prom-client's defaults give monitorEventLoopDelay's percentiles
 * as gauges of one process, which cannot be aggregated across processes; this histogram can
 * (histogram_quantile over every replica). It is measured by a timer of its own: every 10 ms it
 * observes how late it fired. monitorEventLoopDelay is not used for it: on Node 20 it recorded a
 * 300 ms busy stretch as a 10 ms sample (test/api/metrics.test.ts blocks the loop and checks).
 */
function watchEventLoopDelay(): void {
  const histogram = new Histogram({
    name: 'nodejs_eventloop_delay_seconds',
    help: 'Event-loop delay: how late a 10 ms timer fires (beyond its interval).',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [register],
  });
  let last = performance.now();
  setInterval(() => {
    const now = performance.now();
    histogram.observe(Math.max(0, (now - last - SAMPLING_MS) / 1000));
    last = now;
  }, SAMPLING_MS).unref();
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
