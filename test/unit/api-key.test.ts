import test from 'ava';
import { generateApiKey, hashApiKeySecret, parseApiKey, secretMatchesHash } from '../../domain/api-key';

test('a generated key has the form <prefix>_live_<key_id>_<secret> and parses back', (t) => {
  const key = generateApiKey('inv');
  t.regex(key.fullKey, /^inv_live_[0-9A-Za-z]{16}_[0-9A-Za-z]{43}$/);
  t.deepEqual(parseApiKey(key.fullKey), { prefix: 'inv', keyId: key.keyId, secret: key.secret });
});

test('only the digest of the secret is kept, and it verifies the secret alone', (t) => {
  const key = generateApiKey('inv');
  t.deepEqual(key.secretHash, hashApiKeySecret(key.secret));
  t.false(key.secretHash.toString('utf8').includes(key.secret));
  t.true(secretMatchesHash(key.secret, key.secretHash));
  // Another last character (one in 64 secrets already ends in 'x').
  const other = key.secret.endsWith('x') ? 'y' : 'x';
  t.false(secretMatchesHash(`${key.secret.slice(0, -1)}${other}`, key.secretHash));
});

test('two keys never share an id or a secret', (t) => {
  const keys = Array.from({ length: 200 }, () => generateApiKey('inv'));
  t.is(new Set(keys.map((key) => key.keyId)).size, keys.length);
  t.is(new Set(keys.map((key) => key.secret)).size, keys.length);
});

test('malformed keys do not parse', (t) => {
  const valid = generateApiKey('inv').fullKey;
  for (const bad of [
    '',
    'inv_test_0123456789abcdef_' + 'a'.repeat(43),
    valid.replace('_live_', '_'),
    `${valid}x`,
    valid.slice(0, -1),
    valid.replace(/^inv/, 'INV'),
    `Bearer ${valid}`,
  ]) {
    t.is(parseApiKey(bad), null, bad);
  }
});
