import { randomBytes } from 'node:crypto';
import test from 'ava';
import { SecretBox } from '../../domain/secret-box';

test('seals and opens; the sealed text does not contain the secret and differs every time', (t) => {
  const box = new SecretBox(randomBytes(32));
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const a = box.seal(secret);
  const b = box.seal(secret);
  t.not(a, b);
  t.false(a.includes('MfKQ9r8'));
  t.is(box.open(a), secret);
});

test('a tampered ciphertext or another key fails to open', (t) => {
  const box = new SecretBox(randomBytes(32));
  const sealed = Buffer.from(box.seal('secret'), 'base64');
  sealed[sealed.length - 1] ^= 1;
  t.throws(() => box.open(sealed.toString('base64')));
  t.throws(() => new SecretBox(randomBytes(32)).open(box.seal('secret')));
});
