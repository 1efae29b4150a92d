import { randomBytes } from 'node:crypto';
import test from 'ava';
import { SecretBox } from '../../domain/secret-box';
import { MAX_PREVIOUS_SECRETS, newSealedSecret, rotateSecrets, signingSecrets } from '../../domain/webhooks/endpoint-secrets';

const box = new SecretBox(randomBytes(32));
const hours = (n: number) => n * 60 * 60 * 1000;

test('after a rotation both secrets sign for 24 hours, then only the newest', (t) => {
  const start = new Date('2026-11-22T10:00:00Z');
  const first = newSealedSecret(box, start);
  const rotated = rotateSecrets(box, [first.stored], new Date(start.getTime() + hours(1)));
  t.deepEqual(signingSecrets(box, rotated.stored, new Date(start.getTime() + hours(2))), [rotated.secret, first.secret]);
  t.deepEqual(signingSecrets(box, rotated.stored, new Date(start.getTime() + hours(25) + 1)), [rotated.secret]);
});

test('a second rotation keeps the first grace period and drops expired secrets', (t) => {
  const start = new Date('2026-11-22T10:00:00Z');
  const first = newSealedSecret(box, start);
  const second = rotateSecrets(box, [first.stored], start);
  const third = rotateSecrets(box, second.stored, new Date(start.getTime() + hours(12)));
  t.is(third.stored.length, 3);
  t.is(third.stored[2].expires_at, second.stored[1].expires_at, 'the first secret still expires 24 h after the first rotation');
  const fourth = rotateSecrets(box, third.stored, new Date(start.getTime() + hours(40)));
  t.deepEqual(signingSecrets(box, fourth.stored, new Date(start.getTime() + hours(40))), [fourth.secret, third.secret]);
});

test(`rotation after rotation: at most ${MAX_PREVIOUS_SECRETS} previous secrets keep signing, the most recent ones`, (t) => {
  const start = new Date('2026-11-22T10:00:00Z');
  let stored = [newSealedSecret(box, start).stored];
  const secrets: string[] = [];
  for (let i = 1; i <= 10; i += 1) {
    const rotated = rotateSecrets(box, stored, new Date(start.getTime() + i * 60_000));
    stored = rotated.stored;
    secrets.unshift(rotated.secret);
  }
  t.is(stored.length, 1 + MAX_PREVIOUS_SECRETS);
  t.deepEqual(signingSecrets(box, stored, new Date(start.getTime() + hours(1))), secrets.slice(0, 1 + MAX_PREVIOUS_SECRETS));
});
