import test from 'ava';
import { generateWebhookSecret } from '../../domain/webhooks/signature';
import { createGenericHttpIntegration } from '../../integrations/accounting/generic-http';
import type { ExportInput } from '../../integrations/accounting/port';
import { createIntegration, IntegrationConfigError } from '../../integrations/accounting/registry';
import { startFakeErp, type FakeErp } from '../../testing/fake-accounting/generic-erp';
import { exportError } from '../../testing/fake-accounting/export-error';
import { NON_PUBLIC_HOSTS } from '../support/ssrf-hosts';
import { PLAIN_INVOICE_EXTRAS } from '../../testing/fake-accounting/export-input';

const input: ExportInput = {
  document: {
    id: 7,
    number: 'SETP990000002',
    cufe: 'b'.repeat(96),
    issuedAt: '2026-02-10T14:15:23.000Z',
    dueDate: null,
    currency: 'COP',
    subTotal: '1000.00',
    vat: '190.00',
    total: '1190.00',
    lines: [{ description: 'Servicio', quantity: '1', unitPrice: '1000.00', lineTotal: '1000.00', taxPercent: '19.00' }],
    ...PLAIN_INVOICE_EXTRAS,
  },
  supplier: { idType: '31', idNumber: '800197268', dv: '4', name: 'DIAN', email: null },
};

function integration(erp: FakeErp, overrides: { secret?: string; timeoutMs?: number } = {}) {
  return createGenericHttpIntegration({ url: erp.url, secret: erp.state.secret, timeoutMs: 2000, allowPrivateTargets: true, ...overrides });
}


test('the document carries its DIAN type, withholdings, allowances, prepayment, exchange rate and COP equivalents as decimal strings', async (t) => {
  const erp = await startFakeErp();
  try {
    const usd: ExportInput = {
      ...input,
      document: {
        ...input.document,
        currency: 'USD',
        withholdings: [
          { type: 'rete_iva', taxSchemeId: '05', taxSchemeName: 'ReteIVA', percent: '15.00', taxableAmount: '190.00', amount: '28.50', amountCop: '114352.55' },
        ],
        withholdingTotal: '28.50',
        allowanceCharges: [{ charge: false, reasonCode: '11', reason: 'Pronto pago', percent: '5.00', amount: '50.00', baseAmount: '1000.00' }],
        prepaidAmount: '100.00',
        exchangeRate: { sourceCurrency: 'USD', targetCurrency: 'COP', rate: '4012.370000', date: '2026-02-10' },
        copEquivalents: { subTotal: '4012370.00', vat: '762350.30', taxTotal: null, total: '4774720.30', withholdingTotal: '114352.55' },
      },
    };
    await integration(erp).exportPurchase(usd, { idempotencyKey: 'usd-1' });
    const stored = [...erp.state.documents.values()].at(-1)!;
    const document = stored.payload.document as Record<string, unknown>;
    t.like(document, { documentType: 'electronic_invoice', codeScheme: 'CUFE', withholdingTotal: '28.50', prepaidAmount: '100.00' });
    t.deepEqual(document.exchangeRate, { sourceCurrency: 'USD', targetCurrency: 'COP', rate: '4012.370000', date: '2026-02-10' }, 'the rate as written');
    t.deepEqual(document.withholdings, usd.document.withholdings);
    t.deepEqual(document.allowanceCharges, usd.document.allowanceCharges);
    t.deepEqual(document.copEquivalents, usd.document.copEquivalents);
  } finally {
    await erp.close();
  }
});

test('posts { idempotency_key, document, supplier } signed like our webhooks; the fake verifies it with standardwebhooks', async (t) => {
  const erp = await startFakeErp();
  try {
    const result = await integration(erp).exportPurchase(input, { idempotencyKey: 'exp_7_1' });
    t.deepEqual(result, { externalId: 'ERP-1000', externalNumber: 'CXP-SETP990000002', externalName: 'DIAN' });

    const [request] = erp.state.requests;
    t.true(request.verified);
    t.is(request.headers['webhook-id'], 'exp_7_1');
    t.regex(String(request.headers['webhook-timestamp']), /^\d{10}$/);
    t.regex(String(request.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    t.is(request.headers['content-type'], 'application/json');
    t.deepEqual(JSON.parse(request.body), { idempotency_key: 'exp_7_1', document: input.document, supplier: input.supplier });
  } finally {
    await erp.close();
  }
});

test('the same idempotency key again → the same external id, nothing stored twice', async (t) => {
  const erp = await startFakeErp();
  try {
    const erpIntegration = integration(erp);
    const first = await erpIntegration.exportPurchase(input, { idempotencyKey: 'exp_7_1' });
    const again = await erpIntegration.exportPurchase(input, { idempotencyKey: 'exp_7_1' });
    t.deepEqual(again, first);
    t.is(erp.state.documents.size, 1);
    const other = await erpIntegration.exportPurchase(input, { idempotencyKey: 'exp_7_2' });
    t.not(other.externalId, first.externalId);
  } finally {
    await erp.close();
  }
});

test('a wrong secret fails verification → invalid_credentials, not retryable', async (t) => {
  const erp = await startFakeErp();
  try {
    const error = await exportError(integration(erp, { secret: generateWebhookSecret() }).exportPurchase(input, { idempotencyKey: 'k' }));
    t.like(error, { code: 'invalid_credentials', retryable: false, status: 401 });
    t.false(erp.state.requests[0].verified);
    t.is(erp.state.documents.size, 0);
  } finally {
    await erp.close();
  }
});

test('status mapping: 400/422 validation, 409 duplicate, 429 rate limited, 5xx unavailable', async (t) => {
  const erp = await startFakeErp();
  try {
    const erpIntegration = integration(erp);
    const cases: [number, Record<string, string> | undefined, object][] = [
      [400, undefined, { code: 'validation_failed', retryable: false }],
      [422, undefined, { code: 'validation_failed', retryable: false }],
      [409, undefined, { code: 'duplicate_document', retryable: false }],
      [429, { 'retry-after': '7' }, { code: 'rate_limited', retryable: true, retryAfterMs: 7000 }],
      [500, undefined, { code: 'unavailable', retryable: true }],
      [503, undefined, { code: 'unavailable', retryable: true }],
      [404, undefined, { code: 'unexpected_response', retryable: false }],
      [302, { location: 'http://169.254.169.254/' }, { code: 'unexpected_response', retryable: false }],
    ];
    for (const [status, headers, expected] of cases) {
      erp.failNext(1, status, headers, JSON.stringify({ error: `nope ${status}` }));
      const error = await exportError(erpIntegration.exportPurchase(input, { idempotencyKey: `k${status}` }));
      t.like(error, { ...expected, status }, `HTTP ${status}`);
    }
    // The ERP's own message is kept.
    erp.failNext(1, 422, undefined, JSON.stringify({ error: 'supplier is blocked' }));
    const error = await exportError(erpIntegration.exportPurchase(input, { idempotencyKey: 'k' }));
    t.regex(error.message, /supplier is blocked/);
  } finally {
    await erp.close();
  }
});

test('503 then success: the retry with the same key stores the document once', async (t) => {
  const erp = await startFakeErp();
  try {
    const erpIntegration = integration(erp);
    erp.failNext(2, 503);
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const error = await exportError(erpIntegration.exportPurchase(input, { idempotencyKey: 'k' }));
      t.like(error, { code: 'unavailable', retryable: true });
    }
    const result = await erpIntegration.exportPurchase(input, { idempotencyKey: 'k' });
    t.is(result.externalId, 'ERP-1000');
    t.is(erp.state.documents.size, 1);
  } finally {
    await erp.close();
  }
});

test('a hanging ERP → timeout, retryable, within the deadline', async (t) => {
  const erp = await startFakeErp();
  try {
    erp.hangNext(1);
    const started = Date.now();
    const error = await exportError(integration(erp, { timeoutMs: 300 }).exportPurchase(input, { idempotencyKey: 'k' }));
    t.like(error, { code: 'timeout', retryable: true });
    t.true(Date.now() - started < 2000);
  } finally {
    await erp.close();
  }
});

test('2xx answers without { id, number } → unexpected_response', async (t) => {
  const erp = await startFakeErp();
  try {
    const erpIntegration = integration(erp);
    for (const body of ['ok', '{"id":"x"}', '{"number":"1"}', '[]', 'x'.repeat(70 * 1024)]) {
      erp.answerNext(200, body);
      const error = await exportError(erpIntegration.exportPurchase(input, { idempotencyKey: 'k' }));
      t.like(error, { code: 'unexpected_response', retryable: false }, body.slice(0, 20));
    }
    erp.answerNext(200, '{"id": 17, "number": 9}');
    t.deepEqual(await erpIntegration.exportPurchase(input, { idempotencyKey: 'k' }), { externalId: '17', externalNumber: '9', externalName: null });
  } finally {
    await erp.close();
  }
});

test('without private targets, loopback is refused before anything is sent', async (t) => {
  const erp = await startFakeErp();
  try {
    const port = new URL(erp.url).port;
    for (const url of [`http://127.0.0.1:${port}/x`, `http://localhost:${port}/x`]) {
      const erpIntegration = createGenericHttpIntegration({ url, secret: erp.state.secret, timeoutMs: 2000 });
      const error = await exportError(erpIntegration.exportPurchase(input, { idempotencyKey: 'k' }));
      t.like(error, { code: 'validation_failed', retryable: false }, url);
    }
    t.is(erp.state.requests.length, 0);
  } finally {
    await erp.close();
  }
});

test('nothing listening → unavailable, retryable', async (t) => {
  const erp = await startFakeErp();
  const url = erp.url;
  const secret = erp.state.secret;
  await erp.close();
  const error = await exportError(
    createGenericHttpIntegration({ url, secret, timeoutMs: 2000, allowPrivateTargets: true }).exportPurchase(input, { idempotencyKey: 'k' }),
  );
  t.like(error, { code: 'unavailable', retryable: true });
});

test('the registry validates the secret and url, applying the target policy', async (t) => {
  const bad = t.throws(() => createIntegration('generic_http', { secret: 'plain' }, {}), { instanceOf: IntegrationConfigError });
  t.deepEqual(bad!.issues.map((issue) => issue.field).sort(), ['credentials.secret', 'settings.url']);

  const secret = generateWebhookSecret();
  const local = t.throws(() => createIntegration('generic_http', { secret }, { url: 'https://127.0.0.1/erp' }), { instanceOf: IntegrationConfigError });
  t.regex(local!.message, /non-public/);
  const plain = t.throws(() => createIntegration('generic_http', { secret }, { url: 'http://erp.example.com/x' }), { instanceOf: IntegrationConfigError });
  t.regex(plain!.message, /https/);
  t.throws(() => createIntegration('quickbooks' as 'alegra', {}, {}), { instanceOf: IntegrationConfigError });

  const erp = await startFakeErp();
  try {
    const erpIntegration = createIntegration('generic_http', { secret: erp.state.secret }, { url: erp.url }, { allowPrivateTargets: true, timeoutMs: 2000 });
    t.is(erpIntegration.provider, 'generic_http');
    const result = await erpIntegration.exportPurchase(input, { idempotencyKey: 'k' });
    t.is(result.externalId, 'ERP-1000');
  } finally {
    await erp.close();
  }
});

test('without private targets, every non-public host form is refused at connect time and the ERP sees nothing', async (t) => {
  const erp = await startFakeErp();
  try {
    const port = new URL(erp.url).port;
    for (const host of NON_PUBLIC_HOSTS) {
      const url = `http://${host}:${port}/erp`;
      const error = await exportError(
        createGenericHttpIntegration({ url, secret: erp.state.secret, timeoutMs: 2000, allowPrivateTargets: false }).exportPurchase(input, { idempotencyKey: 'k' }),
      );
      t.like(error, { code: 'validation_failed' }, url);
      t.regex(error.message, /non-public|local host name|empty host/, url);
    }
    t.is(erp.state.requests.length, 0);
  } finally {
    await erp.close();
  }
});
