import test from 'ava';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret, signPayload, webhookHeaders } from '../../domain/webhooks/signature';

test('matches the Standard Webhooks test vector', (t) => {
  const signature = signPayload(
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'msg_p5jXN8AQM9LWM0D4loKWxJek',
    1614265330,
    '{"test": 2432232314}',
  );
  t.is(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

test('a generated secret is whsec_ + base64 of 32 random bytes', (t) => {
  const secret = generateWebhookSecret();
  t.regex(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  t.is(Buffer.from(secret.slice(6), 'base64').length, 32);
  t.not(generateWebhookSecret(), secret);
});

test('headers verify with the official standardwebhooks library, with one secret or two', (t) => {
  const oldSecret = generateWebhookSecret();
  const newSecret = generateWebhookSecret();
  const body = JSON.stringify({ id: 'evt', type: 'webhook.test', data: { message: 'hola' } });
  const now = Math.floor(Date.now() / 1000);
  const headers = webhookHeaders([newSecret, oldSecret], 'evt-1', now, body);
  t.is(headers['webhook-signature'].split(' ').length, 2);
  for (const secret of [newSecret, oldSecret]) {
    t.notThrows(() => new Webhook(secret).verify(body, headers));
  }
  t.throws(() => new Webhook(generateWebhookSecret()).verify(body, headers));
  t.throws(() => new Webhook(newSecret).verify(`${body} `, headers), undefined, 'the raw body is what is signed');
});
