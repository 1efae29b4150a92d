import test from 'ava';
import { seedCompany, seedKey, startTestApi, type TestApi } from '../support/api';
import { fixture, upload, waitForImport } from '../support/ingestion';
import { startTestWorker, type TestWorker } from '../support/worker';

// Values Postgres cannot store (a NUL in a text, an amount beyond numeric(18,2)) used to pass the
// parser and fail the import's writes, attempt after attempt, leaving the file PROCESSING for the
// resume schedule to restart forever. They are refused when the file is read: one clean ERROR.
let api: TestApi;
let worker: TestWorker;
let key: string;
let company: { id: number };

test.before(async () => {
  api = await startTestApi();
  worker = await startTestWorker(api.database, api.config);
  company = await seedCompany(api.database, 'Opticas GMO Colombia S.A.S.', '900108281');
  key = (await seedKey(api.database, { scopes: ['documents:read', 'documents:write'], role: 'admin' })).key;
});
test.after.always(async () => {
  await worker?.stop();
  await api?.close();
});

const invoice = fixture('invoice-signed-setp.xml').toString('utf8');

for (const [label, xml, code] of [
  ['a NUL byte in the supplier name', invoice.replace('<cbc:RegistrationName>DIAN</cbc:RegistrationName>', '<cbc:RegistrationName>DI\u0000AN</cbc:RegistrationName>'), 'malformed_xml'],
  ['a 17-digit payable amount', invoice.replace(/<cbc:PayableAmount currencyID="COP">[^<]+</, '<cbc:PayableAmount currencyID="COP">12345678901234567.00<'), 'invalid_field'],
] as const) {
  test(`${label}: the upload ends ERROR ${code} at its first attempt, with nothing stored`, async (t) => {
    t.not(xml, invoice);
    const answer = await upload(api.url, key, company.id, { name: 'unstorable.xml', bytes: Buffer.from(xml) });
    t.is(answer.status, 202, JSON.stringify(answer.body));
    const started = Date.now();
    const file = await waitForImport(api.url, key, company.id, answer.body.id, 30_000);
    t.is(file.status, 'ERROR');
    t.is(file.error?.code, code, JSON.stringify(file.error));
    t.deepEqual(file.documents, []);
    // No retry: the import's first retry would wait 2 s.
    t.true(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
  });
}
