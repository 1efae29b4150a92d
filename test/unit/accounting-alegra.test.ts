import test from 'ava';
import { alegraRetentionKind, createAlegraIntegration, colombianDate } from '../../integrations/accounting/alegra';
import type { ExportInput } from '../../integrations/accounting/port';
import { createIntegration, IntegrationConfigError, INTEGRATION_PROVIDERS } from '../../integrations/accounting/registry';
import { FAKE_ALEGRA_EMAIL, FAKE_ALEGRA_TOKEN, FAKE_CATEGORY_ID, startFakeAlegra, type FakeAlegra } from '../../testing/fake-accounting/alegra';
import { exportError } from '../../testing/fake-accounting/export-error';
import { PLAIN_INVOICE_EXTRAS } from '../../testing/fake-accounting/export-input';

function purchase(overrides: Partial<ExportInput['document']> = {}, supplier: Partial<ExportInput['supplier']> = {}): ExportInput {
  return {
    document: {
      id: 41,
      number: 'FEV-1001',
      cufe: 'a'.repeat(96),
      // 02:30 UTC on the 2nd is still the 1st in Colombia (UTC-5).
      issuedAt: '2026-03-02T02:30:00.000Z',
      dueDate: '2026-03-31',
      currency: 'COP',
      subTotal: '150000.00',
      vat: '19000.00',
      total: '169000.00',
      lines: [
        { description: 'Resma de papel carta', quantity: '10', unitPrice: '10000.00', lineTotal: '100000.00', taxPercent: '19.00' },
        { description: 'Libro contable', quantity: '1', unitPrice: '50000.00', lineTotal: '50000.00', taxPercent: null },
      ],
      ...PLAIN_INVOICE_EXTRAS,
      ...overrides,
    },
    supplier: { idType: '31', idNumber: '900108281', dv: '3', name: 'OPTICAS GMO COLOMBIA S A S', email: 'facturas@gmo.test', ...supplier },
  };
}

function integration(fake: FakeAlegra, overrides: { email?: string; token?: string; timeoutMs?: number; categoryId?: string } = {}) {
  return createAlegraIntegration({
    baseUrl: fake.url,
    email: FAKE_ALEGRA_EMAIL,
    token: FAKE_ALEGRA_TOKEN,
    categoryId: FAKE_CATEGORY_ID,
    timeoutMs: 2000,
    ...overrides,
  });
}


test('exports a bill: creates the provider once, reuses it, and sends the mapped fields', async (t) => {
  const fake = await startFakeAlegra();
  try {
    const alegra = integration(fake);
    const first = await alegra.exportPurchase(purchase(), { idempotencyKey: 'exp_1' });
    t.deepEqual(first, { externalId: fake.state.bills[0].id, externalNumber: 'FEV-1001', externalName: 'OPTICAS GMO COLOMBIA S A S' });

    t.is(fake.state.contacts.length, 1);
    t.like(fake.state.contacts[0], {
      name: 'OPTICAS GMO COLOMBIA S A S',
      identificationObject: { type: 'NIT', number: '900108281', dv: 3 },
      kindOfPerson: 'LEGAL_ENTITY',
      type: ['provider'],
      email: 'facturas@gmo.test',
    });

    const bill = fake.state.bills[0];
    t.like(bill, { date: '2026-03-01', dueDate: '2026-03-31', numberTemplate: { number: 'FEV-1001' }, provider: { id: fake.state.contacts[0].id } });
    t.is(bill.currency, undefined, 'COP is the account currency and is not sent');
    t.regex(bill.observations ?? '', /CUFE a{96}/);
    t.notRegex(bill.observations ?? '', /HABILITACIÓN/);
    t.deepEqual(bill.purchases.categories, [
      { id: FAKE_CATEGORY_ID, price: 10000, quantity: 10, observations: 'Resma de papel carta', tax: [{ id: '1' }] },
      { id: FAKE_CATEGORY_ID, price: 50000, quantity: 1, observations: 'Libro contable' },
    ]);
    t.is(bill.total, 169000);

    const second = await alegra.exportPurchase(purchase({ id: 42, number: 'FEV-1002' }), { idempotencyKey: 'exp_2' });
    t.is(fake.state.contacts.length, 1, 'the provider is found by identification, not created again');
    t.is(fake.state.bills.length, 2);
    t.is(fake.state.bills[1].provider.id, fake.state.contacts[0].id);
    t.not(second.externalId, first.externalId);
    const posts = fake.state.requests.filter((request) => request.method === 'POST' && request.path === '/api/v1/contacts');
    t.is(posts.length, 1);
    t.true(fake.state.requests.every((request) => request.authorized));
  } finally {
    await fake.close();
  }
});

test('only an exact identification match is reused (the search may match by prefix)', async (t) => {
  const fake = await startFakeAlegra();
  try {
    const alegra = integration(fake);
    await alegra.exportPurchase(purchase({}, { idNumber: '9001082810', dv: null, name: 'Otro proveedor' }), { idempotencyKey: 'a' });
    await alegra.exportPurchase(purchase(), { idempotencyKey: 'b' });
    t.is(fake.state.contacts.length, 2);
    t.is(fake.state.bills[1].provider.name, 'OPTICAS GMO COLOMBIA S A S');
    // A NIT without its check digit gets the computed one.
    t.like(fake.state.contacts[0].identificationObject, { type: 'NIT', number: '9001082810' });
    t.is(typeof fake.state.contacts[0].identificationObject.dv, 'number');
  } finally {
    await fake.close();
  }
});

test('a natural person (C.C.) is created with its name split and a foreign currency is sent', async (t) => {
  const fake = await startFakeAlegra();
  try {
    const alegra = integration(fake);
    await alegra.exportPurchase(purchase({ currency: 'usd' }, { idType: '13', idNumber: '1020304050', dv: null, name: 'María Fernanda Gómez Ruiz' }), {
      idempotencyKey: 'a',
    });
    t.like(fake.state.contacts[0], {
      identificationObject: { type: 'CC', number: '1020304050' },
      kindOfPerson: 'PERSON_ENTITY',
      nameObject: { firstName: 'María Fernanda', lastName: 'Gómez Ruiz' },
    });
    t.false('dv' in fake.state.contacts[0].identificationObject);
    t.deepEqual(fake.state.bills[0].currency, { code: 'USD' }, 'without an exchange rate to COP only the code is sent');
  } finally {
    await fake.close();
  }
});

test('a discounted line is sent as one unit at its line total, keeping the original in the note', async (t) => {
  const fake = await startFakeAlegra();
  try {
    await integration(fake).exportPurchase(
      purchase({ lines: [{ description: 'Servicio', quantity: '3', unitPrice: '1000.00', lineTotal: '2700.00', taxPercent: '5' }] }),
      { idempotencyKey: 'a' },
    );
    t.deepEqual(fake.state.bills[0].purchases.categories, [
      { id: FAKE_CATEGORY_ID, price: 2700, quantity: 1, observations: 'Servicio (3 × 1000.00)', tax: [{ id: '2' }] },
    ]);
  } finally {
    await fake.close();
  }
});

/** The USD invoice of test/fixtures/dian/withholdings-usd.xml as the export activity hands it over. */
const USD_EXTRAS: Partial<ExportInput['document']> = {
  currency: 'USD',
  subTotal: '1000.00',
  vat: '190.00',
  total: '1060.00',
  lines: [{ description: 'Licencia anual', quantity: '10.00', unitPrice: '100.00', lineTotal: '1000.00', taxPercent: '19.00' }],
  withholdings: [
    { type: 'rete_fuente', taxSchemeId: '06', taxSchemeName: 'ReteRenta', percent: '2.50', taxableAmount: '1000.00', amount: '25.00', amountCop: '100309.25' },
    { type: 'rete_iva', taxSchemeId: '05', taxSchemeName: 'ReteIVA', percent: '15.00', taxableAmount: '190.00', amount: '28.50', amountCop: '114352.55' },
    { type: 'rete_ica', taxSchemeId: '07', taxSchemeName: 'ReteICA', percent: '0.966', taxableAmount: '1000.00', amount: '9.66', amountCop: '38759.49' },
  ],
  withholdingTotal: '63.16',
  allowanceCharges: [
    { charge: false, reasonCode: '11', reason: 'Descuento por pronto pago', percent: '5.00', amount: '50.00', baseAmount: '1000.00' },
    { charge: true, reasonCode: null, reason: 'Cargo por envío', percent: '2.00', amount: '20.00', baseAmount: '1000.00' },
  ],
  prepaidAmount: '100.00',
  exchangeRate: { sourceCurrency: 'USD', targetCurrency: 'COP', rate: '4012.37', date: '2026-02-10' },
  copEquivalents: { subTotal: '4012370.00', vat: '762350.30', taxTotal: null, total: '4253112.20', withholdingTotal: '253421.29' },
};

test('withholdings become the bill retentions, charges become lines, the exchange rate goes with the currency', async (t) => {
  const fake = await startFakeAlegra();
  try {
    await integration(fake).exportPurchase(purchase(USD_EXTRAS), { idempotencyKey: 'usd' });
    const bill = fake.state.bills[0];
    t.deepEqual(bill.currency, { code: 'USD', exchangeRate: 4012.37 });
    t.deepEqual(bill.retentions, [
      { id: '12', amount: 25 },
      { id: '13', amount: 28.5 },
      { id: '14', amount: 9.66 },
    ]);
    t.deepEqual(bill.purchases.categories, [
      { id: FAKE_CATEGORY_ID, price: 100, quantity: 10, observations: 'Licencia anual', tax: [{ id: '1' }] },
      { id: FAKE_CATEGORY_ID, price: 20, quantity: 1, observations: 'Cargo: Cargo por envío' },
    ]);
    t.regex(bill.observations ?? '', /Descuento a nivel de documento 50\.00 USD \(Descuento por pronto pago\)/);
    t.regex(bill.observations ?? '', /Anticipos 100\.00 USD/);
    t.regex(bill.observations ?? '', /Tasa de cambio 4012\.37 COP\/USD; total 4253112\.20 COP/);
    t.is(fake.state.requests.filter((request) => request.path === '/api/v1/retentions').length, 1, 'the retention list is read once');
  } finally {
    await fake.close();
  }
});

test('a habilitación (testing) document is posted with its observations saying first that it is no real purchase', async (t) => {
  const fake = await startFakeAlegra();
  try {
    await integration(fake).exportPurchase(purchase({ dianEnvironment: 'testing' }), { idempotencyKey: 'testing' });
    t.regex(fake.state.bills[0].observations ?? '', /^DOCUMENTO DE HABILITACIÓN DIAN \(ambiente de pruebas\): no es una compra real · CUFE /);
  } finally {
    await fake.close();
  }
});

test('a withholding the Alegra account has no active retention for fails before anything is created', async (t) => {
  const fake = await startFakeAlegra();
  try {
    const error = await exportError(
      integration(fake).exportPurchase(
        purchase({ withholdings: [{ type: 'rete_fuente', taxSchemeId: '06', taxSchemeName: 'ReteRenta', percent: '11.00', taxableAmount: '100.00', amount: '11.00', amountCop: null }], withholdingTotal: '11.00' }),
        { idempotencyKey: 'x' },
      ),
    );
    t.is(error.code, 'validation_failed');
    t.regex(error.message, /no active retention for the supplier's withholding ReteRenta 11\.00 %/);
    t.is(fake.state.bills.length, 0);
    t.is(fake.state.contacts.length, 0);
  } finally {
    await fake.close();
  }
});

test('Alegra retentions are told apart by type, else by name: ICA is not IVA', (t) => {
  t.is(alegraRetentionKind({ type: 'RETEICA' }), 'rete_ica');
  t.is(alegraRetentionKind({ type: 'RETEIVA' }), 'rete_iva');
  t.is(alegraRetentionKind({ type: 'RETEFUENTE' }), 'rete_fuente');
  t.is(alegraRetentionKind({ name: 'Retención de ICA Bogotá' }), 'rete_ica');
  t.is(alegraRetentionKind({ name: 'Retención de IVA 15%' }), 'rete_iva');
  t.is(alegraRetentionKind({ name: 'Retención en la fuente servicios técnicos' }), 'rete_fuente');
  t.is(alegraRetentionKind({ name: 'Otra' }), null);
});

test('wrong credentials → invalid_credentials, not retryable', async (t) => {
  const fake = await startFakeAlegra();
  try {
    const error = await exportError(integration(fake, { token: 'wrong' }).exportPurchase(purchase(), { idempotencyKey: 'a' }));
    t.like(error, { code: 'invalid_credentials', retryable: false, status: 401 });
    t.is(fake.state.bills.length, 0);
  } finally {
    await fake.close();
  }
});

test('Alegra validation errors → validation_failed with its message and code, not retryable', async (t) => {
  const fake = await startFakeAlegra();
  try {
    // A category id the account does not have: Alegra answers 400 { message, code }.
    const error = await exportError(integration(fake, { categoryId: '999' }).exportPurchase(purchase(), { idempotencyKey: 'a' }));
    t.like(error, { code: 'validation_failed', retryable: false, status: 400 });
    t.regex(error.message, /categoría/);

    // Alegra's own numeric code travels along.
    fake.failNext(1, 400, undefined, { message: 'Proveedor no encontrado', code: 11004 });
    const coded = await exportError(integration(fake).exportPurchase(purchase(), { idempotencyKey: 'b' }));
    t.like(coded, { code: 'validation_failed', providerCode: '11004', retryable: false });
  } finally {
    await fake.close();
  }
});

test('what we can check locally fails before any request', async (t) => {
  const fake = await startFakeAlegra();
  try {
    const cases: [ExportInput, RegExp][] = [
      [purchase({ lines: [] }), /no lines/],
      [purchase({ lines: [{ description: 'x', quantity: '1', unitPrice: '1,5', lineTotal: '1.5', taxPercent: null }] }), /not a decimal/],
      [purchase({ issuedAt: 'ayer' }), /not a date/],
      [purchase({}, { idType: '99' }), /no Alegra equivalent/],
    ];
    for (const [input, message] of cases) {
      const error = await exportError(integration(fake).exportPurchase(input, { idempotencyKey: 'a' }));
      t.like(error, { code: 'validation_failed', retryable: false });
      t.regex(error.message, message);
    }
    const noCategory = await exportError(integration(fake, { categoryId: '' }).exportPurchase(purchase(), { idempotencyKey: 'a' }));
    t.regex(noCategory.message, /category/);
    t.is(fake.state.requests.length, 0);
  } finally {
    await fake.close();
  }
});

test('a tax percent the account does not have is a validation error naming it', async (t) => {
  const fake = await startFakeAlegra();
  try {
    const lines = [{ description: 'x', quantity: '1', unitPrice: '100', lineTotal: '100', taxPercent: '16.00' }];
    const error = await exportError(integration(fake).exportPurchase(purchase({ lines }), { idempotencyKey: 'a' }));
    t.like(error, { code: 'validation_failed', retryable: false });
    t.regex(error.message, /16 %/);
    t.is(fake.state.bills.length, 0);
    t.is(fake.state.contacts.length, 0, 'nothing is created when the document cannot be posted');
  } finally {
    await fake.close();
  }
});

test('the same supplier number twice → duplicate_document, not retryable', async (t) => {
  const fake = await startFakeAlegra();
  try {
    const alegra = integration(fake);
    await alegra.exportPurchase(purchase(), { idempotencyKey: 'a' });
    const error = await exportError(alegra.exportPurchase(purchase({ id: 99 }), { idempotencyKey: 'b' }));
    t.like(error, { code: 'duplicate_document', retryable: false, status: 400 });
    t.is(fake.state.bills.length, 1);
  } finally {
    await fake.close();
  }
});

test('429 → rate_limited, retryable, with retryAfterMs from Retry-After', async (t) => {
  const fake = await startFakeAlegra({ requestsPerSecond: 2 });
  try {
    const error = await exportError(integration(fake).exportPurchase(purchase(), { idempotencyKey: 'a' }));
    // taxes + contact search pass; the third request in the same second is refused.
    t.like(error, { code: 'rate_limited', retryable: true, status: 429 });
    t.is(error.retryAfterMs, 1000);
  } finally {
    await fake.close();
  }
});

test('429 without Retry-After falls back to X-Rate-Limit-Reset, then to a full minute', async (t) => {
  const fake = await startFakeAlegra();
  try {
    fake.failNext(1, 429, { 'x-rate-limit-reset': '37' });
    const withReset = await exportError(integration(fake).exportPurchase(purchase(), { idempotencyKey: 'a' }));
    t.like(withReset, { code: 'rate_limited', retryable: true, retryAfterMs: 37_000 });

    fake.failNext(1, 429);
    const bare = await exportError(integration(fake).exportPurchase(purchase(), { idempotencyKey: 'a' }));
    t.like(bare, { code: 'rate_limited', retryAfterMs: 60_000 });
  } finally {
    await fake.close();
  }
});

test('503 → unavailable, retryable; the retry then succeeds', async (t) => {
  const fake = await startFakeAlegra();
  try {
    const alegra = integration(fake);
    fake.failNext(1, 503, { 'retry-after': '5' });
    const error = await exportError(alegra.exportPurchase(purchase(), { idempotencyKey: 'a' }));
    t.like(error, { code: 'unavailable', retryable: true, status: 503, retryAfterMs: 5000 });
    const result = await alegra.exportPurchase(purchase(), { idempotencyKey: 'a' });
    t.is(result.externalNumber, 'FEV-1001');
  } finally {
    await fake.close();
  }
});

test('a request that hangs past the timeout → timeout, retryable', async (t) => {
  const fake = await startFakeAlegra();
  try {
    fake.hangNext(1);
    const started = Date.now();
    const error = await exportError(integration(fake, { timeoutMs: 300 }).exportPurchase(purchase(), { idempotencyKey: 'a' }));
    t.like(error, { code: 'timeout', retryable: true });
    t.true(Date.now() - started < 2000);
  } finally {
    await fake.close();
  }
});

test('nothing listening → unavailable, retryable', async (t) => {
  const fake = await startFakeAlegra();
  const url = fake.url;
  await fake.close();
  const alegra = createAlegraIntegration({ baseUrl: url, email: 'a@b.co', token: 't', categoryId: '1', timeoutMs: 2000 });
  const error = await exportError(alegra.exportPurchase(purchase(), { idempotencyKey: 'a' }));
  t.like(error, { code: 'unavailable', retryable: true });
});

test('a 2xx that is not JSON → unexpected_response, not retryable', async (t) => {
  const fake = await startFakeAlegra();
  try {
    fake.failNext(1, 200, { 'content-type': 'text/html' }, '<html>mantenimiento</html>');
    const error = await exportError(integration(fake).exportPurchase(purchase(), { idempotencyKey: 'a' }));
    t.like(error, { code: 'unexpected_response', retryable: false });
  } finally {
    await fake.close();
  }
});

test('issue dates are Colombian calendar dates', (t) => {
  t.is(colombianDate('2026-01-01T04:59:59Z'), '2025-12-31');
  t.is(colombianDate('2026-01-01T05:00:00Z'), '2026-01-01');
  t.is(colombianDate('2026-01-01'), '2026-01-01');
});

test('the registry validates Alegra credentials and settings and builds a working integration', async (t) => {
  const error = t.throws(() => createIntegration('alegra', { email: 'not-an-email' }, { category_id: 'abc', extra: 'x' }), {
    instanceOf: IntegrationConfigError,
  });
  const fields = error!.issues.map((issue) => issue.field).sort();
  t.deepEqual(fields, ['credentials.email', 'credentials.token', 'settings', 'settings.category_id']);
  t.deepEqual(
    INTEGRATION_PROVIDERS.alegra.credentials.map((field) => field.name),
    ['email', 'token'],
  );

  const fake = await startFakeAlegra();
  try {
    const alegra = createIntegration(
      'alegra',
      { email: FAKE_ALEGRA_EMAIL, token: FAKE_ALEGRA_TOKEN },
      { category_id: FAKE_CATEGORY_ID },
      { alegraBaseUrl: fake.url, timeoutMs: 2000 },
    );
    t.is(alegra.provider, 'alegra');
    const result = await alegra.exportPurchase(purchase(), { idempotencyKey: 'a' });
    t.is(result.externalId, fake.state.bills[0].id);
  } finally {
    await fake.close();
  }
});

test('an answer larger than 4 MiB is not read into memory: the export fails unexpected_response', async (t) => {
  const http = await import('node:http');
  let sentBytes = 0;
  const server = http.createServer((req, res) => {
    // GET /contacts (the first call) answers 200 with 512 MiB of JSON.
    res.writeHead(req.method === 'GET' ? 200 : 500, { 'content-type': 'application/json' });
    res.write('{"message":"huge answer", "padding":"');
    const chunk = Buffer.alloc(64 * 1024, 0x61);
    const pump = () => {
      while (!res.destroyed && sentBytes < 512 * 1024 * 1024 && res.write(chunk)) sentBytes += chunk.length;
      if (!res.destroyed && sentBytes < 512 * 1024 * 1024) res.once('drain', pump);
    };
    res.on('close', () => (sentBytes = Infinity));
    pump();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as import('node:net').AddressInfo;
  const alegra = createAlegraIntegration({ baseUrl: `http://127.0.0.1:${port}`, email: FAKE_ALEGRA_EMAIL, token: FAKE_ALEGRA_TOKEN, categoryId: FAKE_CATEGORY_ID, timeoutMs: 10_000 });
  const heapBefore = process.memoryUsage().heapUsed;
  const error = await exportError(alegra.exportPurchase(purchase(), { idempotencyKey: 'exp_huge' }));
  t.is(error.code, 'unexpected_response');
  t.regex(error.message, /more than 4194304 bytes/);
  t.true(process.memoryUsage().heapUsed - heapBefore < 64 * 1024 * 1024);
});

test("a line's every tax is booked: IVA with ICUI, INC to Alegra's INC (not an IVA of the same rate), a tax per unit as a line of its own", async (t) => {
  const fake = await startFakeAlegra({
    taxes: [
      { id: '1', name: 'IVA 19%', percentage: '19.00', type: 'IVA', status: 'active' },
      { id: '3', name: 'INC 8%', percentage: '8.00', type: 'INC', status: 'active' },
      { id: '4', name: 'IVA 8%', percentage: '8.00', type: 'IVA', status: 'active' },
      { id: '5', name: 'ICUI 20%', percentage: '20.00', type: 'ICUI', status: 'active' },
    ],
  });
  try {
    // 10000 × (1 + 19 % + 20 %) + 2 bags × 66.00 + 50000 × (1 + 8 %) = 13900 + 132 + 54000.
    const input = purchase({
      subTotal: '60000.00',
      vat: '1900.00',
      total: '68032.00',
      lines: [
        {
          description: 'Bebida azucarada',
          quantity: '1',
          unitPrice: '10000.00',
          lineTotal: '10000.00',
          taxPercent: '19.00',
          taxes: [
            { taxSchemeId: '01', taxSchemeName: 'IVA', percent: '19.00', amount: '1900.00' },
            { taxSchemeId: '35', taxSchemeName: 'ICUI', percent: '20.00', amount: '2000.00' },
          ],
        },
        // A tax per unit written with a Percent of 0.00 beside its PerUnitAmount is still per unit.
        {
          description: 'Bolsa plástica',
          quantity: '2',
          unitPrice: '0.00',
          lineTotal: '0.00',
          taxPercent: '0.00',
          taxes: [{ taxSchemeId: '22', taxSchemeName: 'INC Bolsas', percent: '0.00', amount: '132.00', perUnitAmount: '66.00' }],
        },
        { description: 'Servicio de restaurante', quantity: '1', unitPrice: '50000.00', lineTotal: '50000.00', taxPercent: '8.00', taxes: [{ taxSchemeId: '04', taxSchemeName: 'INC', percent: '8.00', amount: '4000.00' }] },
      ],
    });
    await integration(fake).exportPurchase(input, { idempotencyKey: 'exp_taxes' });
    const [bill] = fake.state.bills;
    t.deepEqual(
      bill!.purchases.categories.map((line) => [line.observations, line.price, line.quantity, line.tax?.map((tax) => tax.id) ?? []]),
      [
        ['Bebida azucarada', 10000, 1, ['1', '5']],
        ['Bolsa plástica', 0, 2, []],
        ['Servicio de restaurante', 50000, 1, ['3']],
        ['Impuesto INC Bolsas de la línea 2', 132, 1, []],
      ],
    );
    t.is(bill!.total, 68032);
  } finally {
    await fake.close();
  }
});

test("a free item's tax (muestra gratis: line total 0, IVA on its commercial value) is booked as an amount, so the bill is not short of it", async (t) => {
  const fake = await startFakeAlegra({ taxes: [{ id: '1', name: 'IVA 19%', percentage: '19.00', type: 'IVA', status: 'active' }] });
  try {
    // DIAN's toolbox example "Muestras Gratis": a product worth 1,000,000.00 given free, its IVA 190,000.00 is the whole PayableAmount.
    const input = purchase({
      subTotal: '0.00',
      vat: '190000.00',
      total: '190000.00',
      lines: [
        {
          description: 'Prod  Gratis con Impuestos',
          quantity: '1.000000',
          unitPrice: '0.00',
          lineTotal: '0.00',
          taxPercent: '19.00',
          taxes: [{ taxSchemeId: '01', taxSchemeName: 'IVA', percent: '19.00', amount: '190000.00' }],
        },
      ],
    });
    await integration(fake).exportPurchase(input, { idempotencyKey: 'exp_free_sample' });
    const [bill] = fake.state.bills;
    t.deepEqual(
      bill!.purchases.categories.map((line) => [line.observations, line.price, line.quantity, line.tax?.map((tax) => tax.id) ?? []]),
      [
        ['Prod  Gratis con Impuestos', 0, 1, []],
        ['Impuesto IVA de la línea 1', 190000, 1, []],
      ],
    );
    t.is(bill!.total, 190000);
  } finally {
    await fake.close();
  }
});
