import { randomBytes } from 'node:crypto';
import test from 'ava';
import { decodeCursor, encodeCursor, InvalidCursorError } from '../../domain/cursor';

const key = randomBytes(32);

test('a cursor decodes to its position within its own scope', (t) => {
  const token = encodeCursor(key, { scope: 'deliveries:7', position: ['2026-11-22T09:00:00.000000Z', 41] });
  t.deepEqual(decodeCursor(key, token, 'deliveries:7'), ['2026-11-22T09:00:00.000000Z', 41]);
});

test('altered, foreign-scope, foreign-key and garbage cursors are refused', (t) => {
  const token = encodeCursor(key, { scope: 'deliveries:7', position: [1] });
  const [body, mac] = token.split('.');
  const forgedBody = Buffer.from(JSON.stringify({ scope: 'deliveries:7', position: [999] })).toString('base64url');
  for (const [bad, scope] of [
    [`${forgedBody}.${mac}`, 'deliveries:7'],
    [token, 'deliveries:8'],
    [encodeCursor(randomBytes(32), { scope: 'deliveries:7', position: [1] }), 'deliveries:7'],
    ['garbage', 'deliveries:7'],
    [`${body}.${mac}.x`, 'deliveries:7'],
    ['', 'deliveries:7'],
  ] as const) {
    t.throws(() => decodeCursor(key, bad, scope), { instanceOf: InvalidCursorError }, bad);
  }
});
