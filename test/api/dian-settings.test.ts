import { monitorEventLoopDelay } from 'node:perf_hooks';
import test from 'ava';
import { bearer, seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { generateTestPkcs12, withIterationCounts } from '../../testing/dian-certificates';

// PUT /dian-settings with hostile PKCS#12 files (issue 10): refused before any key derivation.
let api: TestApi;
let put: (body: Record<string, unknown>) => Promise<{ status: number; body: any; ms: number }>;

test.before(async () => {
  api = await startTestApi();
  const company = await seedCompany(api.database, 'Certificados S.A.S.', '901234567');
  const { key } = await seedKey(api.database, { scopes: ['documents:write', 'documents:read'], role: 'admin' });
  put = async (body) => {
    const started = performance.now();
    const response = await fetch(`${api.url}/v1/companies/${company.id}/dian-settings`, {
      method: 'PUT',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      body: JSON.stringify({ environment: 'simulator', software_id: 'sw', software_pin: '1', ...body }),
    });
    return { status: response.status, body: await response.json(), ms: performance.now() - started };
  };
});
test.after.always(async () => api?.close());

test('a PKCS#12 asking for 1.5 M or 2^31−1 iterations is refused with 400 certificate_iterations_exceeded, without stalling the API', async (t) => {
  const generated = generateTestPkcs12('clave');
  // A valid file first: the CPU pool starts its thread (module loading) outside the measurement.
  t.is((await put({ certificate_p12_base64: generated.p12.toString('base64'), certificate_password: 'clave' })).status, 200);
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  for (const mac of [1_500_000, 2 ** 31 - 1]) {
    const hostile = withIterationCounts(generated.p12, { mac });
    const answer = await put({ certificate_p12_base64: hostile.toString('base64'), certificate_password: 'clave' });
    t.is(answer.status, 400, JSON.stringify(answer.body));
    t.like(answer.body.error, { code: 'certificate_iterations_exceeded', param: 'certificate_p12_base64' });
    t.regex(answer.body.error.message, /at most 100000/);
    t.true(answer.ms < 500, `answered in ${answer.ms.toFixed(0)} ms`);
  }
  histogram.disable();
  t.true(histogram.max / 1e6 < 200, `event loop blocked up to ${(histogram.max / 1e6).toFixed(0)} ms`);

  const ok = await put({ certificate_p12_base64: generated.p12.toString('base64'), certificate_password: 'clave' });
  t.is(ok.status, 200, JSON.stringify(ok.body));
});
