import test from 'ava';
import { addressRange, isPublicAddress, parseWebhookUrl, TargetNotAllowedError } from '../../domain/webhooks/target-address';
import { createIntegration, IntegrationConfigError } from '../../integrations/accounting/registry';
import { generateWebhookSecret } from '../../domain/webhooks/signature';
import { NON_PUBLIC_HOSTS, PUBLIC_HOSTS } from '../support/ssrf-hosts';

const production = { allowPrivateTargets: false, requireHttps: true };
const development = { allowPrivateTargets: true, requireHttps: false };

test('non-public addresses are recognised', (t) => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1',
    '::ffff:7f00:1', '::7f00:1', '64:ff9b::7f00:1', '64:ff9b:1::a00:1', '2002:7f00:1::', '2001:0:4136:e378:8000:63bf:3fff:fdd2', 'ff02::1', 'fec0::1']) {
    t.false(isPublicAddress(address), address);
  }
  for (const address of ['8.8.8.8', '172.32.0.1', '200.14.1.1', '2800:3f0:4005::200e', '::ffff:8.8.8.8']) {
    t.true(isPublicAddress(address), address);
  }
  t.is(addressRange('::ffff:7f00:1'), 'ipv4Mapped:loopback');
  t.is(addressRange('64:ff9b::a9fe:a9fe'), 'rfc6052');
  t.is(addressRange('not an address'), 'invalid');
});

test('production accepts only https URLs to public hosts', (t) => {
  t.is(parseWebhookUrl('https://erp.example.co/hooks', production).hostname, 'erp.example.co');
  for (const bad of ['http://erp.example.co/hooks', 'https://127.0.0.1/x', 'https://[::1]/x', 'https://169.254.169.254/latest',
    'https://localhost/x', 'https://10.0.0.8/x', 'ftp://erp.example.co', 'erp.example.co/hooks', 'https://u:p@erp.example.co/']) {
    t.throws(() => parseWebhookUrl(bad, production), { instanceOf: TargetNotAllowedError }, bad);
  }
});

test('production refuses every non-public host form at registration (webhooks and the generic HTTP integration)', (t) => {
  const secret = generateWebhookSecret();
  for (const host of NON_PUBLIC_HOSTS) {
    const url = `https://${host}/hooks`;
    const error = t.throws(() => parseWebhookUrl(url, production), { instanceOf: TargetNotAllowedError }, url);
    t.regex(error!.message, /non-public|local host name|empty host/, url);
    const config = t.throws(() => createIntegration('generic_http', { secret }, { url }), { instanceOf: IntegrationConfigError }, url);
    t.is(config!.issues[0]?.field, 'settings.url', url);
  }
  for (const host of PUBLIC_HOSTS) {
    const url = `https://${host}/hooks`;
    t.notThrows(() => parseWebhookUrl(url, production), url);
    t.notThrows(() => createIntegration('generic_http', { secret }, { url }), url);
  }
});

test('development allows loopback http receivers', (t) => {
  t.is(parseWebhookUrl('http://127.0.0.1:4000/hook', development).port, '4000');
  t.is(parseWebhookUrl('http://[::ffff:127.0.0.1]:4000/hook', development).hostname, '[::ffff:7f00:1]');
  t.throws(() => parseWebhookUrl('file:///etc/passwd', development), { instanceOf: TargetNotAllowedError });
});
