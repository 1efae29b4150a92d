import { Webhook } from 'standardwebhooks';
import { EVENT_BODIES } from '../../api/v1/webhooks/events-openapi';
import { isEventType } from '../../domain/webhooks/event-types';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedRequest = { headers: http.IncomingHttpHeaders; body: string; receivedAt: number };

export type Reply = { status: number; delayMs?: number; headers?: Record<string, string> };
export type Responder = (request: ReceivedRequest, index: number) => Reply | Promise<Reply>;

/** A real HTTP receiver on loopback that records every request with its raw body. */
export async function startReceiver(responder: Responder = () => ({ status: 200 })) {
  const received: ReceivedRequest[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() };
      received.push(request);
      const reply = await responder(request, received.length - 1);
      for (const waiter of [...waiters]) {
        if (received.length >= waiter.count) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
        res.end(reply.status >= 400 ? `receiver says ${reply.status}` : 'ok');
      };
      if (reply.delayMs) setTimeout(send, reply.delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
  return {
    url,
    received,
    /** Resolves once `count` requests have arrived, or rejects after timeoutMs. */
    waitFor(count: number, timeoutMs = 60_000): Promise<void> {
      if (received.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`only ${received.length} of ${count} requests within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({ count, resolve: () => (clearTimeout(timer), resolve()) });
      });
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export type VerifiedEvent = { id: string; type: string; data: Record<string, any> };

/**
 * One received webhook, verified with the official standardwebhooks library (a bad signature
 * throws) and checked against its type's documented body (the OpenAPI `webhooks`, a mismatch
 * throws naming the field), as it arrived (nothing stripped).
 */
export function verifiedEvent(request: ReceivedRequest, secret: string): VerifiedEvent {
  const event = new Webhook(secret).verify(request.body, {
    'webhook-id': String(request.headers['webhook-id']),
    'webhook-timestamp': String(request.headers['webhook-timestamp']),
    'webhook-signature': String(request.headers['webhook-signature']),
  }) as VerifiedEvent;
  if (!isEventType(event.type)) throw new Error(`webhook ${event.id}: unknown event type ${event.type}`);
  const checked = EVENT_BODIES[event.type].safeParse(event);
  if (!checked.success) throw new Error(`webhook ${event.id} (${event.type}) is not its documented body: ${checked.error.message}`);
  return event;
}

/** The received webhook events, each verified and checked as verifiedEvent does, in arrival order. */
export function verifiedEvents(received: readonly ReceivedRequest[], secret: string): VerifiedEvent[] {
  return received.map((request) => verifiedEvent(request, secret));
}
