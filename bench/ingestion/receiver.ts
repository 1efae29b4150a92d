import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

export type ImportEvent = {
  /** performance.now() in this process when the whole webhook body had been read. */
  receivedAt: number;
  type: string;
  /** The event's data: the Uploaded file record. */
  data: { id: number; status: string; documents: unknown[]; skipped: unknown[]; error: unknown } & Record<string, unknown>;
};

export type ImportEventReceiver = {
  /** http://127.0.0.1:PORT; endpoints append their own path. */
  baseUrl: string;
  /** First arrival of each uploaded file's event, by file id (data.id). */
  events: ReadonlyMap<number, ImportEvent>;
  /** Deliveries of a file id that had already arrived (webhooks are at-least-once). */
  duplicates(): number;
  /** Requests that were not a POST of a JSON event with a numeric data.id. */
  malformed(): string[];
  /** Resolves when every id has an event; rejects when none arrives for idleTimeoutMs. */
  waitFor(ids: readonly number[], idleTimeoutMs: number): Promise<void>;
  close(): Promise<void>;
};

/**
 * The loopback endpoint the benchmark subscribes to document.imported (and, on a second path,
 * to document.import_failed, so a failed import ends the run at once instead of by timeout).
 * It answers 200 at once and records when each file's first event arrived.
 */
export async function startImportEventReceiver(): Promise<ImportEventReceiver> {
  const events = new Map<number, ImportEvent>();
  const malformed: string[] = [];
  let duplicates = 0;
  let lastArrival = performance.now();
  const listeners = new Set<() => void>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const receivedAt = performance.now();
      let body: { type?: unknown; data?: { id?: unknown } } | undefined;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
      } catch {
        body = undefined;
      }
      const id = body?.data?.id;
      if (req.method !== 'POST' || typeof id !== 'number' || typeof body?.type !== 'string') {
        malformed.push(`${req.method} ${req.url}: ${Buffer.concat(chunks).toString('utf8').slice(0, 200)}`);
        res.writeHead(400, { 'content-type': 'text/plain' }).end('expected a POSTed event');
        return;
      }
      lastArrival = receivedAt;
      if (events.has(id)) duplicates += 1;
      else events.set(id, { receivedAt, type: body.type, data: body.data as ImportEvent['data'] });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      for (const listener of listeners) listener();
    });
  });
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    baseUrl: `http://127.0.0.1:${port}`,
    events,
    duplicates: () => duplicates,
    malformed: () => [...malformed],
    waitFor(ids, idleTimeoutMs) {
      return new Promise<void>((resolve, reject) => {
        lastArrival = Math.max(lastArrival, performance.now());
        const check = () => {
          const failed = ids.map((id) => events.get(id)).find((event) => event && event.type !== 'document.imported');
          if (failed) {
            done();
            reject(new Error(`file ${failed.data.id}: ${failed.type} ${JSON.stringify(failed.data.error ?? failed.data)}`));
          } else if (ids.every((id) => events.has(id))) {
            done();
            resolve();
          }
        };
        const timer = setInterval(() => {
          if (performance.now() - lastArrival > idleTimeoutMs) {
            done();
            const missing = ids.filter((id) => !events.has(id));
            reject(new Error(`no event for ${idleTimeoutMs / 1000} s; ${missing.length} of ${ids.length} files still have none (e.g. ${missing.slice(0, 10).join(', ')})`));
          }
        }, 500);
        const done = () => {
          clearInterval(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
