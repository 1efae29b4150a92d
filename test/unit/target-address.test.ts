import test from 'ava';
import { isPublicAddress, parseWebhookUrl, TargetNotAllowedError } from '../../domain/webhooks/target-address';

const production = { allowPrivateTargets: false, requireHttps: true };
const development = { allowPrivateTargets: true, requireHttps: false };

test('non-public addresses are recognised', (t) => {
  for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '100.64.0.1', '0.0.0.0', '224.0.0.1', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1']) {
    t.false(isPublicAddress(address), address);
  }
  for (const address of ['8.8.8.8', '172.32.0.1', '200.14.1.1', '2800:3f0:4005::200e']) {
    t.true(isPublicAddress(address), address);
  }
});

test('production accepts only https URLs to public hosts', (t) => {
  t.is(parseWebhookUrl('https://erp.example.co/hooks', production).hostname, 'erp.example.co');
  for (const bad of ['http://erp.example.co/hooks', 'https://127.0.0.1/x', 'https://[::1]/x', 'https://169.254.169.254/latest',
    'https://localhost/x', 'https://10.0.0.8/x', 'ftp://erp.example.co', 'erp.example.co/hooks', 'https://u:p@erp.example.co/']) {
    t.throws(() => parseWebhookUrl(bad, production), { instanceOf: TargetNotAllowedError }, bad);
  }
});

test('development allows loopback http receivers', (t) => {
  t.is(parseWebhookUrl('http://127.0.0.1:4000/hook', development).port, '4000');
  t.throws(() => parseWebhookUrl('file:///etc/passwd', development), { instanceOf: TargetNotAllowedError });
});
