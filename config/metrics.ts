import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
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
 * (histogram_quantile over every replica). At each scrape the samples taken since the previous
 * one are added at their percentile step (the monitor's HDR histogram keeps values, not samples),
 * then the monitor starts afresh: the buckets only grow. The sampling interval itself is not a
 * delay and is subtracted.
 */
function watchEventLoopDelay(): void {
  const monitor = monitorEventLoopDelay({ resolution: SAMPLING_MS });
  monitor.enable();
  new Histogram({
    name: 'nodejs_eventloop_delay_seconds',
    help: 'Event-loop delay sampled every 10 ms by monitorEventLoopDelay (beyond the sampling interval).',
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
    registers: [register],
    collect() {
      const beyondSampling = (nanoseconds: number) => Math.max(0, nanoseconds / 1e9 - SAMPLING_MS / 1000);
      const total = monitor.count;
      if (total > 0) {
        // All samples but the worst at their percentile step (cumulative, so rounding never loses
        // any), then the worst itself: with thousands of samples its step would round to none.
        let observed = 0;
        for (const [percentile, nanoseconds] of monitor.percentiles) {
          const upTo = Math.min(total - 1, Math.round(((total - 1) * percentile) / 100));
          for (; observed < upTo; observed += 1) this.observe(beyondSampling(nanoseconds));
        }
        this.observe(beyondSampling(monitor.max));
      }
      monitor.reset();
    },
  });
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
