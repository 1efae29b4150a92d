import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An ERP for the generic HTTP integration that books each idempotency key once, as docs/exports.md
 * asks of one: `received` lists the key of every request, `booked` the booking of each key.
 * `answerAfter(index)` delays the answer to the index-th request (a promise: until it settles);
 * `unavailableAt(index)` answers it 503, booking nothing.
 */
export async function startDeduplicatingErp(answerAfter: (index: number) => Promise<void> | number = () => 0, unavailableAt: (index: number) => boolean = () => false) {
  const received: string[] = [];
  const booked = new Map<string, string>();
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const idempotencyKey = (JSON.parse(body) as { idempotency_key: string }).idempotency_key;
      received.push(idempotencyKey);
      if (unavailableAt(received.length - 1)) {
        response.writeHead(503, { 'Content-Type': 'text/plain' }).end('down for maintenance');
        return;
      }
      if (!booked.has(idempotencyKey)) booked.set(idempotencyKey, `ERP-${booked.size + 1}`);
      const id = booked.get(idempotencyKey)!;
      const answer = () => response.writeHead(201, { 'Content-Type': 'application/json' }).end(JSON.stringify({ id, number: id }));
      const wait = answerAfter(received.length - 1);
      if (typeof wait === 'number') setTimeout(answer, wait);
      else void wait.then(answer, answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/bills`,
    received,
    booked,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
