import dns from 'node:dns';
import test, { type ExecutionContext } from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { webhookAdmin } from '../support/webhook-api';
import { NON_PUBLIC_HOSTS } from '../support/ssrf-hosts';
import { generateWebhookSecret } from '../../domain/webhooks/signature';
import { signingSecrets } from '../../domain/webhooks/endpoint-secrets';

// The webhook endpoint API: validation, authorization and tenant isolation, pagination.
let api: TestApi;
let admin: Awaited<ReturnType<typeof webhookAdmin>>;

test.before(async () => {
  api = await startTestApi();
  admin = await webhookAdmin(api.database, api.url);
});
test.after.always(async () => api?.close());

const receiverUrl = 'http://127.0.0.1:9/hooks';

test('create returns 201 with the endpoint record and a whsec_ secret of 32 bytes; reads never show the secret', async (t) => {
  const created = await admin.call('POST', `/v1/companies/${admin.company.id}/webhooks`, { url: receiverUrl, events: ['export.failed', 'export.failed'] });
  t.is(created.status, 201);
  const body = created.body!;
  t.deepEqual(Object.keys(body).sort(), ['company_id', 'consecutive_failures', 'created_at', 'enabled', 'events', 'id', 'secret', 'updated_at', 'url']);
  t.like(body, { company_id: admin.company.id, url: receiverUrl, events: ['export.failed'], enabled: true, consecutive_failures: 0 });
  t.is(Buffer.from(body.secret.slice('whsec_'.length), 'base64').length, 32);

  const read = await admin.call('GET', `/v1/webhooks/${body.id}`);
  t.is(read.status, 200);
  t.false('secret' in read.body!);
  const stored = await api.database.db('webhook_endpoints').where({ id: body.id }).first();
  t.false(JSON.stringify(stored.secrets).includes(body.secret.slice(6, 20)), 'the secret is stored sealed');
});

test('two rotations at once both keep their secret: each answered secret signs deliveries (one was lost to the other write)', async (t) => {
  for (let trial = 0; trial < 5; trial += 1) {
    const created = await admin.call('POST', `/v1/companies/${admin.company.id}/webhooks`, { url: receiverUrl });
    const [first, second] = await Promise.all([1, 2].map(() => admin.call('POST', `/v1/webhooks/${created.body!.id}/rotate-secret`)));
    t.is(first.status, 200);
    t.is(second.status, 200);
    const stored = await api.database.db('webhook_endpoints').where({ id: created.body!.id }).first();
    const signing = signingSecrets(api.dependencies.secretBox, stored.secrets, new Date());
    t.deepEqual(signing.length, 3, 'the two new secrets and the first one');
    for (const answer of [first, second, created]) t.true(signing.includes(answer.body!.secret), `trial ${trial}`);
  }
});

test('a URL scheme in capitals is the same scheme (RFC 3986): accepted and stored lower-case', async (t) => {
  const upper = receiverUrl.replace(/^http:/, 'HTTP:');
  t.not(upper, receiverUrl);
  const created = await admin.call('POST', `/v1/companies/${admin.company.id}/webhooks`, { url: upper });
  t.is(created.status, 201, JSON.stringify(created.body));
  t.is(created.body!.url, receiverUrl);
});

test('a bracketed IPv6 literal is a host (outside production a loopback one too); a malformed one is 400 naming url', async (t) => {
  const loopback = await admin.call('POST', `/v1/companies/${admin.company.id}/webhooks`, { url: 'http://[::1]:9/hooks' });
  t.is(loopback.status, 201, JSON.stringify(loopback.body));
  for (const url of ['http://[1::2::3]/x', 'http://[12345::]/x', 'http://[::1/x', 'http://[fe80::1%25eth0]/x']) {
    const refused = await admin.call('POST', `/v1/companies/${admin.company.id}/webhooks`, { url });
    t.is(refused.status, 400, url);
    t.is(refused.body!.error.param, 'url', url);
  }
});

test('events defaults to [] (all events, including future ones)', async (t) => {
  const created = await admin.call('POST', `/v1/companies/${admin.company.id}/webhooks`, { url: receiverUrl });
  t.is(created.status, 201);
  t.deepEqual(created.body!.events, []);
});

for (const [label, body, param] of [
  ['an unknown event type', { url: receiverUrl, events: ['invoice.exploded'] }, 'events'],
  ['events that are not a list', { url: receiverUrl, events: 'export.failed' }, 'events'],
  ['a relative url', { url: '/hooks' }, 'url'],
  ['a non-http url', { url: 'ftp://example.com/x' }, 'url'],
  ['a missing url', { events: [] }, 'url'],
  ['an unknown field', { url: receiverUrl, secret: 'whsec_mine' }, 'secret'],
] as const) {
  test(`create refuses ${label} with 400 naming ${param}`, async (t) => {
    const result = await admin.call('POST', `/v1/companies/${admin.company.id}/webhooks`, body);
    t.is(result.status, 400, JSON.stringify(result.body));
    t.is(result.body!.error.code, 'invalid_parameter');
    t.is(result.body!.error.param, param);
  });
}

test('a webhook id spelt with a leading zero, a sign or a fraction is 400 naming webhook_id, and the message says how to spell it', async (t) => {
  for (const id of ['01', '+1', '1.0', '0']) {
    const result = await admin.call('GET', `/v1/webhooks/${id}`);
    t.is(result.status, 400, `${id}: ${JSON.stringify(result.body)}`);
    t.like(result.body!.error, { code: 'invalid_parameter', param: 'webhook_id' });
    t.regex(String(result.body!.error.message), /plain decimal digits, without sign or leading zeros/);
  }
});

/** A URL refused (400) on webhook create, on PATCH of an endpoint and on a generic_http integration; returns the create's error. */
async function refusedEverywhere(
  t: ExecutionContext,
  apiUrl: string,
  admin: Awaited<ReturnType<typeof webhookAdmin>>,
  integrationKey: string,
  endpointId: number,
  url: string,
): Promise<{ code: string; message: string }> {
  const created = await admin.call('POST', `/v1/companies/${admin.company.id}/webhooks`, { url });
  t.is(created.status, 400, `create ${url}`);
  t.like(created.body!.error, { code: 'invalid_parameter', param: 'url' }, url);
  const patched = await admin.call('PATCH', `/v1/webhooks/${endpointId}`, { url });
  t.is(patched.status, 400, `patch ${url}`);
  const integration = await fetch(`${apiUrl}/v1/companies/${admin.company.id}/integrations`, {
    method: 'POST',
    headers: { ...bearer(integrationKey), 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'erp', provider: 'generic_http', credentials: { secret: generateWebhookSecret() }, settings: { url } }),
  });
  t.is(integration.status, 400, `integration ${url}`);
  t.is(((await integration.json()) as { error: { param: string } }).error.param, 'settings.url');
  return created.body!.error;
}

test('in production only https URLs to public hosts are accepted, for webhooks and the generic HTTP integration', async (t) => {
  const production = await startTestApi({ NODE_ENV: 'production' });
  try {
    const prodAdmin = await webhookAdmin(production.database, production.url);
    for (const url of ['http://hooks.example.com/x', 'https://127.0.0.1/x', 'https://169.254.169.254/latest', 'https://10.1.2.3/x', 'https://localhost/x']) {
      const result = await prodAdmin.call('POST', `/v1/companies/${prodAdmin.company.id}/webhooks`, { url });
      t.is(result.status, 400, url);
      t.is(result.body!.error.param, 'url');
    }
    const ok = await prodAdmin.call('POST', `/v1/companies/${prodAdmin.company.id}/webhooks`, { url: 'https://hooks.example.com/x' });
    t.is(ok.status, 201);
    // A public IPv6 literal is a public address like any other (the URL pattern refused every IPv6 literal before 2026-11-25).
    const ipv6 = await prodAdmin.call('POST', `/v1/companies/${prodAdmin.company.id}/webhooks`, { url: 'https://[2606:4700:4700::1111]/hook' });
    t.is(ipv6.status, 201, JSON.stringify(ipv6.body));
    t.is(ipv6.body!.url, 'https://[2606:4700:4700::1111]/hook');

    // Every non-public host form, on create and on PATCH of webhooks and on the generic HTTP integration.
    const integrationAdmin = await seedKey(production.database, { scopes: ['documents:write'], role: 'admin' });
    for (const host of NON_PUBLIC_HOSTS) await refusedEverywhere(t, production.url, prodAdmin, integrationAdmin.key, ok.body!.id, `https://${host}/hooks`);
  } finally {
    await production.close();
  }
});

test('in production a host name that resolves to a non-public address is refused at registration (400), without naming the address', async (t) => {
  // Names this machine resolves to private and loopback addresses (an internal DNS), and one to a public address.
  const resolved: Record<string, { address: string; family: number }[]> = {
    'intranet.test': [{ address: '10.0.0.5', family: 4 }],
    'rebind.test': [{ address: '93.184.215.14', family: 4 }, { address: '127.0.0.1', family: 4 }],
    'mapped.test': [{ address: '::ffff:169.254.169.254', family: 6 }],
    'public.test': [{ address: '93.184.215.14', family: 4 }],
  };
  const original = dns.lookup;
  (dns as { lookup: unknown }).lookup = (host: string, options: unknown, callback: (...args: unknown[]) => void) => {
    const found = resolved[host];
    if (!found) return (original as (...args: unknown[]) => void)(host, options, callback);
    process.nextTick(() => callback(null, found));
  };
  const production = await startTestApi({ NODE_ENV: 'production' });
  try {
    const prodAdmin = await webhookAdmin(production.database, production.url);
    const integrationAdmin = await seedKey(production.database, { scopes: ['documents:write'], role: 'admin' });
    const ok = await prodAdmin.call('POST', `/v1/companies/${prodAdmin.company.id}/webhooks`, { url: 'https://public.test/hooks' });
    t.is(ok.status, 201, JSON.stringify(ok.body));
    for (const host of ['intranet.test', 'rebind.test', 'mapped.test']) {
      const refusal = await refusedEverywhere(t, production.url, prodAdmin, integrationAdmin.key, ok.body!.id, `https://${host}/hooks`);
      t.regex(refusal.message, /resolves to a non-public address/, host);
      t.false(/10\.0\.0\.5|127\.0\.0\.1|169\.254/.test(refusal.message), 'the addresses found are not told');
    }
    t.is((await prodAdmin.call('GET', `/v1/webhooks/${ok.body!.id}`)).body!.url, 'https://public.test/hooks', 'the refused PATCHes changed nothing');
    // A name that does not resolve (yet) is left to the connect-time check.
    t.is((await prodAdmin.call('POST', `/v1/companies/${prodAdmin.company.id}/webhooks`, { url: 'https://not-yet.invalid/hooks' })).status, 201);
  } finally {
    (dns as { lookup: unknown }).lookup = original;
    await production.close();
  }
});

test('managing webhooks needs webhooks:manage and the admin role (403), and sees only its companies (404)', async (t) => {
  const endpoint = await admin.createEndpoint(receiverUrl);
  const member = await seedKey(api.database, { scopes: ['webhooks:manage'], role: 'member' });
  const noScope = await seedKey(api.database, { scopes: ['documents:read'], role: 'admin' });
  const other = await seedCompany(api.database, 'Ajena S.A.S.', '830122566');
  const outsider = await seedKey(api.database, { scopes: ['webhooks:manage'], role: 'admin', companyIds: [other.id] });

  const get = (key: string, path: string) => fetch(`${api.url}${path}`, { headers: bearer(key) });
  t.is((await get(member.key, `/v1/webhooks/${endpoint.id}`)).status, 403);
  t.is((await get(noScope.key, `/v1/webhooks/${endpoint.id}`)).status, 403);
  t.is((await get(member.key, `/v1/companies/${admin.company.id}/webhooks`)).status, 403);
  for (const path of [`/v1/webhooks/${endpoint.id}`, `/v1/webhooks/${endpoint.id}/deliveries`, `/v1/companies/${admin.company.id}/webhooks`]) {
    const response = await get(outsider.key, path);
    t.is(response.status, 404, path);
  }
  const rotate = await fetch(`${api.url}/v1/webhooks/${endpoint.id}/rotate-secret`, { method: 'POST', headers: bearer(outsider.key) });
  t.is(rotate.status, 404);
  t.is((await get(admin.key, '/v1/webhooks/999999')).status, 404);
});

test('PATCH changes url and events, validates, and refuses an empty patch', async (t) => {
  const endpoint = await admin.createEndpoint(receiverUrl);
  const patched = await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { url: 'http://127.0.0.1:10/new', events: ['contact.created'] });
  t.is(patched.status, 200);
  t.like(patched.body, { url: 'http://127.0.0.1:10/new', events: ['contact.created'], enabled: true });
  t.is((await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, {})).status, 400);
  const bad = await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: 'yes' });
  t.is(bad.status, 400);
  t.is(bad.body!.error.param, 'enabled');
  const paused = await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: false });
  t.like(paused.body, { enabled: false });
  const resumed = await admin.call('PATCH', `/v1/webhooks/${endpoint.id}`, { enabled: true });
  t.like(resumed.body, { enabled: true, consecutive_failures: 0 });
});

test('DELETE answers 204, then the endpoint is gone', async (t) => {
  const endpoint = await admin.createEndpoint(receiverUrl);
  t.is((await admin.call('DELETE', `/v1/webhooks/${endpoint.id}`)).status, 204);
  t.is((await admin.call('GET', `/v1/webhooks/${endpoint.id}`)).status, 404);
  t.is((await admin.call('DELETE', `/v1/webhooks/${endpoint.id}`)).status, 404);
});

test('the endpoint list pages with a cursor bound to its company; bad limits and cursors are 400', async (t) => {
  const own = await webhookAdmin(api.database, api.url);
  const ids: number[] = [];
  for (let i = 0; i < 5; i += 1) ids.push((await own.createEndpoint(receiverUrl)).id);
  const seen: number[] = [];
  let cursor: string | null = null;
  do {
    const page: { body: Record<string, any> | null } = await own.call('GET', `/v1/companies/${own.company.id}/webhooks?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    seen.push(...page.body!.data.map((endpoint: { id: number }) => endpoint.id));
    cursor = page.body!.has_more ? page.body!.next_cursor : null;
    if (!page.body!.has_more) t.is(page.body!.next_cursor, null);
  } while (cursor);
  t.deepEqual(seen, [...ids].reverse());

  const first = await own.call('GET', `/v1/companies/${own.company.id}/webhooks?limit=2`);
  const foreign = await admin.call('GET', `/v1/companies/${admin.company.id}/webhooks?cursor=${encodeURIComponent(first.body!.next_cursor)}`);
  t.is(foreign.status, 400);
  t.is(foreign.body!.error.code, 'invalid_cursor');
  for (const query of ['limit=0', 'limit=101', 'limit=abc', 'limit=-1']) {
    const result = await own.call('GET', `/v1/companies/${own.company.id}/webhooks?${query}`);
    t.is(result.status, 400, query);
    t.is(result.body!.error.param, 'limit');
  }
  const garbage = await own.call('GET', `/v1/webhooks/${ids[0]}/deliveries?cursor=not-a-cursor`);
  t.is(garbage.body!.error.code, 'invalid_cursor');
  // A parameter the list does not take is refused, not ignored (a Stripe-style cursor looped on page one).
  for (const [path, param] of [[`/v1/companies/${own.company.id}/webhooks?starting_after=${ids[0]}`, 'starting_after'], [`/v1/webhooks/${ids[0]}/deliveries?state=failed`, 'state']]) {
    const unknown = await own.call('GET', path);
    t.is(unknown.status, 400, path);
    t.is(unknown.body!.error.code, 'invalid_parameter', path);
    t.is(unknown.body!.error.param, param, path);
  }
  t.is((await own.call('GET', `/v1/webhooks/${ids[0]}/deliveries?status=failed&event_type=webhook.test&limit=5`)).status, 200);
});

test('a company holds at most 50 endpoints', async (t) => {
  const own = await webhookAdmin(api.database, api.url);
  for (let i = 0; i < 50; i += 1) await own.createEndpoint(receiverUrl);
  const refused = await own.call('POST', `/v1/companies/${own.company.id}/webhooks`, { url: receiverUrl });
  t.is(refused.status, 409);
  t.is(refused.body!.error.code, 'endpoint_limit_reached');
});

test('a test event answers 202 with Location naming its delivery to this endpoint, which shows the event (it named nothing before 2026-11-25)', async (t) => {
  const endpoint = await admin.createEndpoint(receiverUrl, ['export.failed']);
  const sent = await admin.call('POST', `/v1/webhooks/${endpoint.id}/test`);
  t.is(sent.status, 202, JSON.stringify(sent.body));
  t.like(sent.body, { type: 'webhook.test' });
  t.is(sent.headers.get('location'), `/v1/webhooks/${endpoint.id}/deliveries/${sent.body!.delivery_id}`);
  const delivery = await admin.call('GET', sent.headers.get('location')!);
  t.is(delivery.status, 200);
  t.like(delivery.body, { id: sent.body!.delivery_id, event_id: sent.body!.event_id, event_type: 'webhook.test' });
});
