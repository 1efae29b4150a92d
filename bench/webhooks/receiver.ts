import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export type BenchReceiver = {
  /** http://127.0.0.1:PORT — endpoints append their own path. */
  baseUrl: string;
  /** First arrival (performance.now()) of each webhook-id, per request path. */
  arrivalsAt(path: string): ReadonlyMap<string, number>;
  /** Distinct (path, webhook-id) pairs received on paths starting with prefix. */
  countUnder(prefix: string): number;
  /** Requests whose (path, webhook-id) had already arrived (the engine delivers at least once). */
  duplicates: number;
  /** Requests without a webhook-id header, or with a method other than POST. */
  malformed: number;
  close(): Promise<void>;
};

/**
 * A loopback webhook receiver for the benchmark: answers 200 at once and records when each
 * (path, webhook-id) first arrived. Arrival is taken when the request's body has been read,
 * i.e. when the receiver has the whole webhook.
 */
export async function startBenchReceiver(): Promise<BenchReceiver> {
  const arrivals = new Map<string, Map<string, number>>();
  const counts = new Map<string, number>();
  const state = { duplicates: 0, malformed: 0 };

  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const receivedAt = performance.now();
      const webhookId = req.headers['webhook-id'];
      const path = req.url ?? '/';
      if (req.method !== 'POST' || typeof webhookId !== 'string' || webhookId === '') {
        state.malformed += 1;
        res.writeHead(400, { 'content-type': 'text/plain' }).end('expected a POST with a webhook-id');
        return;
      }
      let byId = arrivals.get(path);
      if (!byId) arrivals.set(path, (byId = new Map()));
      if (byId.has(webhookId)) state.duplicates += 1;
      else {
        byId.set(webhookId, receivedAt);
        counts.set(path, (counts.get(path) ?? 0) + 1);
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    arrivalsAt: (path) => arrivals.get(path) ?? new Map<string, number>(),
    countUnder(prefix) {
      let total = 0;
      for (const [path, count] of counts) if (path.startsWith(prefix)) total += count;
      return total;
    },
    get duplicates() {
      return state.duplicates;
    },
    get malformed() {
      return state.malformed;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
