import test from 'ava';
import { seedDemoDocuments } from '../../admin/demo-documents';
import { loadConfig } from '../../config';
import { S3BlobStore } from '../../storage/s3-blob-store';
import { bearer, seedCompany, seedKey, startTestApi } from '../support/api';
import { startS3Server } from '../support/s3-server';
import { startSlowLink } from '../support/slow-link';

// The S3 driver against a real MinIO server process on loopback.
let s3: Awaited<ReturnType<typeof startS3Server>>;

test.before(async () => {
  s3 = await startS3Server();
  Object.assign(process.env, { AWS_ACCESS_KEY_ID: s3.env.AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY: s3.env.AWS_SECRET_ACCESS_KEY });
});
test.after.always(async () => s3?.close());

function store(env: Record<string, string> = {}) {
  const config = loadConfig({ ...process.env, ...s3.env, ...env });
  if (config.blobStore.driver !== 's3') throw new Error('expected the s3 driver');
  return new S3BlobStore(config.blobStore);
}

test('upload, presign, download without credentials, with type and disposition', async (t) => {
  const blobs = store();
  const bytes = Buffer.from('%PDF-1.7\nfactura\n');
  await blobs.put('companies/1/uploads/factura.pdf', bytes, 'application/pdf');
  t.true(await blobs.exists('companies/1/uploads/factura.pdf'));
  t.false(await blobs.exists('companies/1/uploads/none.pdf'));
  t.deepEqual(await blobs.get('companies/1/uploads/factura.pdf'), bytes);

  const url = await blobs.signedDownloadUrl('companies/1/uploads/factura.pdf', { fileName: 'Factura Nº 1.pdf', contentType: 'application/pdf' });
  const parsed = new URL(url);
  t.is(parsed.searchParams.get('X-Amz-Expires'), '3600');
  const response = await fetch(url);
  t.is(response.status, 200);
  t.is(response.headers.get('content-type'), 'application/pdf');
  t.regex(response.headers.get('content-disposition') ?? '', /attachment; filename="Factura No 1.pdf"; filename\*=UTF-8''Factura%20N%C2%BA%201.pdf/);
  t.deepEqual(Buffer.from(await response.arrayBuffer()), bytes);
});

test('a presigned URL past its expiry, or altered, is refused', async (t) => {
  const blobs = store();
  await blobs.put('companies/1/uploads/short.xml', Buffer.from('<x/>'), 'application/xml');
  // 5 s, not 1: on a loaded machine the first fetch took over a second and was refused as expired.
  const signedAt = Date.now();
  const url = await blobs.signedDownloadUrl('companies/1/uploads/short.xml', { fileName: 'short.xml', contentType: 'application/xml', expiresInSeconds: 5 });
  t.is((await fetch(url)).status, 200);
  const forged = url.replace(/X-Amz-Signature=([0-9a-f])/, (_match, first: string) => `X-Amz-Signature=${first === '0' ? '1' : '0'}`);
  t.is((await fetch(forged)).status, 403, 'a wrong signature');
  const otherObject = url.replace('short.xml?', 'other.xml?');
  t.is((await fetch(otherObject)).status, 403, 'a signature for another object');
  // S3 signatures count whole seconds from X-Amz-Date: past the expiry by more than a second.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, signedAt + 7_100 - Date.now())));
  t.is((await fetch(url)).status, 403);
});

test('the API on the S3 driver redirects originals and PDFs to presigned object-storage URLs', async (t) => {
  const api = await startTestApi(s3.env);
  try {
    const company = await seedCompany(api.database, 'S3 S.A.S.', '900108281');
    const demo = await seedDemoDocuments({ repositories: api.database.repositories, blobStore: api.dependencies.blobStore }, company);
    const { key } = await seedKey(api.database, { scopes: ['documents:read'] });
    for (const path of [`invoices/${demo.invoiceFromZip}/pdf`, `invoices/${demo.invoiceFromZip}/original`, `payment-claim-accounts/${demo.paymentClaim}/pdf`]) {
      const redirect = await fetch(`${api.url}/v1/companies/${company.id}/${path}`, { headers: bearer(key), redirect: 'manual' });
      t.is(redirect.status, 302, path);
      const location = redirect.headers.get('location')!;
      t.true(location.startsWith(`${s3.endpoint}/${s3.bucket}/`), location);
      const file = await fetch(location);
      t.is(file.status, 200, path);
      t.true((await file.arrayBuffer()).byteLength > 0);
    }
  } finally {
    await api.close();
  }
});

test('delete removes an object; deleting a missing key is not an error', async (t) => {
  const blobs = store();
  await blobs.put('companies/1/uploads/gone.pdf', Buffer.from('%PDF-1.7\n'), 'application/pdf');
  await blobs.delete('companies/1/uploads/gone.pdf');
  t.false(await blobs.exists('companies/1/uploads/gone.pdf'));
  await t.notThrowsAsync(blobs.delete('companies/1/uploads/never.pdf'));
});

test('a 20 MB write to a slow but moving store takes many times the idle deadline and the base of the whole-call one, and succeeds', async (t) => {
  t.timeout(60_000);
  // 4 MiB a second: 5 s for the body, against a deadline of 1 s without a byte (a total deadline of 3 × 1 s would refuse it),
  // and a whole-call deadline of 1 s plus the body's time at the default minimum pace (128 KiB/s: 160 s for 20 MiB).
  const link = await startSlowLink(s3.endpoint, 4 * 1024 * 1024);
  try {
    const blobs = store({ S3_ENDPOINT: link.url, S3_CONNECT_TIMEOUT_MS: '1000', S3_IDLE_TIMEOUT_MS: '1000', S3_OPERATION_TIMEOUT_MS: '1000' });
    const bytes = Buffer.alloc(20 * 1024 * 1024, 0x61);
    const started = Date.now();
    await blobs.put('companies/1/uploads/large.xml', bytes, 'application/xml');
    const ms = Date.now() - started;
    t.log(`20 MiB written through a 4 MiB/s link in ${ms} ms (idle deadline 1000 ms, whole-call base 1000 ms)`);
    t.true(ms > 3_000, `the link was slow (${ms} ms)`);
    t.is((await store().get('companies/1/uploads/large.xml')).length, bytes.length);
  } finally {
    await link.close();
  }
});
