import test from 'ava';
import { postWebhook } from '../../activities/webhook-http';
import { startReceiver } from '../support/receiver';
import { NON_PUBLIC_HOSTS } from '../support/ssrf-hosts';

const headers = { 'content-type': 'application/json', 'webhook-id': 'evt_1' };

test('posts the exact body and headers, and reports 2xx as success', async (t) => {
  const receiver = await startReceiver(() => ({ status: 202 }));
  try {
    const outcome = await postWebhook(receiver.url, headers, '{"a":1}', { timeoutMs: 2000, allowPrivateTargets: true });
    t.like(outcome, { statusCode: 202, error: null, succeeded: true });
    t.is(receiver.received[0].body, '{"a":1}');
    t.is(receiver.received[0].headers['webhook-id'], 'evt_1');
  } finally {
    await receiver.close();
  }
});

test('without private targets, loopback is refused at connect time by name and by literal address', async (t) => {
  const receiver = await startReceiver();
  try {
    const port = new URL(receiver.url).port;
    for (const url of [`http://localhost:${port}/hooks`, `http://127.0.0.1:${port}/hooks`, `http://[::1]:${port}/hooks`]) {
      const outcome = await postWebhook(url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: false });
      t.false(outcome.succeeded, url);
      t.regex(outcome.error ?? '', /ETARGETBLOCKED|non-public|not a public/, url);
    }
    t.is(receiver.received.length, 0);
  } finally {
    await receiver.close();
  }
});

test('without private targets, every non-public host form is refused before connecting', async (t) => {
  const receiver = await startReceiver();
  try {
    const port = new URL(receiver.url).port;
    for (const host of NON_PUBLIC_HOSTS) {
      const url = `http://${host}:${port}/hooks`;
      const outcome = await postWebhook(url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: false });
      t.like(outcome, { statusCode: null, succeeded: false }, url);
      t.regex(outcome.error ?? '', /^ETARGETBLOCKED/, url);
    }
    t.is(receiver.received.length, 0, 'nothing reached the loopback receiver');
  } finally {
    await receiver.close();
  }
});

test('an error answer keeps at most 1 KB of its body for last_error', async (t) => {
  const receiver = await startReceiver(() => ({ status: 500 }));
  try {
    const outcome = await postWebhook(receiver.url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: true });
    t.like(outcome, { statusCode: 500, succeeded: false });
    t.regex(outcome.error ?? '', /^HTTP 500: receiver says 500$/);
  } finally {
    await receiver.close();
  }
});

test('connection refused is a network failure', async (t) => {
  const receiver = await startReceiver();
  const url = receiver.url;
  await receiver.close();
  const outcome = await postWebhook(url, headers, '{}', { timeoutMs: 2000, allowPrivateTargets: true });
  t.like(outcome, { statusCode: null, succeeded: false });
  t.regex(outcome.error ?? '', /ECONNREFUSED/);
});
