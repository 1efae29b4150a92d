/**
 * A loopback fake of an in-house ERP behind the generic HTTP integration. It verifies the
 * Standard Webhooks signature with the reference `standardwebhooks` package (not our own
 * signing code) and answers 401 when it does not verify; it stores documents by idempotency
 * key, so a repeat answers the same id; faults can be injected.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret } from '../../domain/webhooks/signature';

export type StoredDocument = { id: string; number: string; name: string | null; idempotencyKey: string; payload: Record<string, unknown> };
export type ErpRequest = { headers: http.IncomingHttpHeaders; body: string; verified: boolean; status: number | null };

type Fault =
  | { kind: 'status'; status: number; headers?: Record<string, string>; body?: string }
  | { kind: 'hang' }
  | { kind: 'raw'; status: number; body: string };

export async function startFakeErp(options: { secret?: string } = {}) {
  const secret = options.secret ?? generateWebhookSecret();
  const verifier = new Webhook(secret);
  const state = {
    secret,
    documents: new Map<string, StoredDocument>(),
    requests: [] as ErpRequest[],
    faults: [] as Fault[],
    nextId: 1000,
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const record: ErpRequest = { headers: req.headers, body, verified: false, status: null };
      state.requests.push(record);
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        record.status = status;
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json', ...headers });
        res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
      };

      const fault = state.faults.shift();
      if (fault?.kind === 'hang') return;
      if (fault?.kind === 'status') return send(fault.status, fault.body ?? { error: `fake fault ${fault.status}` }, fault.headers);
      if (fault?.kind === 'raw') return send(fault.status, fault.body);

      if (req.method !== 'POST') return send(405, { error: 'POST only' });
      try {
        verifier.verify(body, {
          'webhook-id': String(req.headers['webhook-id'] ?? ''),
          'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
          'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
        });
        record.verified = true;
      } catch (error) {
        return send(401, { error: `signature rejected: ${(error as Error).message}` });
      }

      let payload: Record<string, unknown>;
      try {
        payload = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return send(400, { error: 'body is not JSON' });
      }
      const key = payload.idempotency_key;
      if (typeof key !== 'string' || key !== req.headers['webhook-id']) return send(400, { error: 'idempotency_key must equal webhook-id' });
      const document = payload.document as { number?: unknown; lines?: unknown } | undefined;
      const supplier = payload.supplier as { name?: unknown } | undefined;
      if (!document || !Array.isArray(document.lines) || !supplier || typeof supplier.name !== 'string') {
        return send(422, { error: 'document.lines and supplier.name are required' });
      }
      const existing = state.documents.get(key);
      if (existing) return send(200, { id: existing.id, number: existing.number, name: existing.name });

      const stored: StoredDocument = {
        id: `ERP-${state.nextId++}`,
        number: typeof document.number === 'string' ? `CXP-${document.number}` : `CXP-${state.nextId}`,
        name: supplier.name,
        idempotencyKey: key,
        payload,
      };
      state.documents.set(key, stored);
      send(201, { id: stored.id, number: stored.number, name: stored.name });
    });
  });

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/accounting/purchases`,
    state,
    failNext(count: number, status = 503, headers?: Record<string, string>, body?: string) {
      for (let i = 0; i < count; i += 1) state.faults.push({ kind: 'status', status, headers, body });
    },
    /** The next answer is `status` with this exact body (e.g. a 200 that is not JSON). */
    answerNext(status: number, body: string) {
      state.faults.push({ kind: 'raw', status, body });
    },
    hangNext(count: number) {
      for (let i = 0; i < count; i += 1) state.faults.push({ kind: 'hang' });
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export const start = startFakeErp;
export const fakeGenericErp = { start: startFakeErp };
export type FakeErp = Awaited<ReturnType<typeof startFakeErp>>;
