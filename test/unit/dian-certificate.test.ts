import { execFileSync } from 'node:child_process';
import { createSign, createVerify, randomBytes, X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import forge from 'node-forge';
import { CertificateError, loadPkcs12 } from '../../domain/dian/certificate';
import { MAX_PKCS12_ITERATIONS, pkcs12Iterations } from '../../domain/dian/pkcs12-iterations';
import { generateTestPkcs12, withIterationCounts } from '../../testing/dian-certificates';
import { createTestDatabase } from '../support/database';
import { createCompany } from '../../admin/create-company';
import { SecretBox } from '../../domain/secret-box';
import { companyDian } from '../../activities/dian-gateway';

test('loads the key, the matching certificate and its XAdES data', (t) => {
  const generated = generateTestPkcs12('clave-segura');
  const loaded = loadPkcs12(generated.p12, 'clave-segura');
  const signature = createSign('RSA-SHA256').update('hola').sign(loaded.privateKeyPem, 'base64');
  t.true(createVerify('RSA-SHA256').update('hola').verify(loaded.certificatePem, signature, 'base64'));
  const x509 = new X509Certificate(loaded.certificatePem);
  t.true(x509.raw.equals(loaded.certificateDer));
  t.is(loaded.serialNumber, BigInt('0x0a1b2c3d4e5f6071').toString(10));
  t.is(loaded.subject, '1.2.840.113549.1.9.1=#16106669726d61406578616d706c652e636f,CN=Firma de pruebas,O=Empresa de Pruebas S.A.S.,L=Bogotá D.C.,C=CO');
  t.is(loaded.issuer, loaded.subject); // self-signed
  t.true(loaded.notAfter.getTime() > Date.now());
  t.deepEqual(loaded.chainPems, []);
});

test('a wrong password is a typed error', (t) => {
  const generated = generateTestPkcs12('clave-segura');
  const error = t.throws(() => loadPkcs12(generated.p12, 'otra'), { instanceOf: CertificateError });
  t.is(error?.code, 'wrong_password');
});

test('a PKCS#12 without private key is a typed error', (t) => {
  const generated = generateTestPkcs12('clave', { includeKey: false });
  const error = t.throws(() => loadPkcs12(generated.p12, 'clave'), { instanceOf: CertificateError });
  t.is(error?.code, 'no_private_key');
});

test('an expired or not yet valid certificate is a typed error', (t) => {
  const expired = generateTestPkcs12('clave', { notBefore: new Date('2020-01-01T00:00:00Z'), notAfter: new Date('2021-01-01T00:00:00Z') });
  t.is(t.throws(() => loadPkcs12(expired.p12, 'clave'), { instanceOf: CertificateError })?.code, 'expired');
  t.notThrows(() => loadPkcs12(expired.p12, 'clave', { now: new Date('2020-06-01T00:00:00Z') }));
  const future = generateTestPkcs12('clave');
  t.is(t.throws(() => loadPkcs12(future.p12, 'clave', { now: new Date('2000-01-01T00:00:00Z') }), { instanceOf: CertificateError })?.code, 'not_yet_valid');
});

test('bytes that are not a PKCS#12 are a typed error', (t) => {
  t.is(t.throws(() => loadPkcs12(Buffer.from('not a p12 at all'), 'x'), { instanceOf: CertificateError })?.code, 'invalid_pkcs12');
});

test('the test certificate generator caches per options', (t) => {
  t.is(generateTestPkcs12('a'), generateTestPkcs12('a'));
  t.not(generateTestPkcs12('a').privateKeyPem, generateTestPkcs12('a', { commonName: 'Otra' }).privateKeyPem);
});

test('a PKCS#12 asking for more key-derivation iterations than the cap is refused before deriving anything', (t) => {
  const generated = generateTestPkcs12('clave');
  t.deepEqual(pkcs12Iterations(forge.asn1.fromDer(generated.p12.toString('binary')), 'clave'), { mac: 2048, pbe: [2048] });
  for (const [label, hostile] of [
    ['MAC 1.5 M', withIterationCounts(generated.p12, { mac: 1_500_000 })],
    ['MAC 2^31−1', withIterationCounts(generated.p12, { mac: 2 ** 31 - 1 })],
    ['shrouded key bag 2^31−1', withIterationCounts(generated.p12, { pbe: 2 ** 31 - 1 })],
  ] as const) {
    const started = performance.now();
    const error = t.throws(() => loadPkcs12(hostile, 'clave'), { instanceOf: CertificateError }, label);
    t.is(error?.code, 'too_many_iterations', label);
    t.regex(error!.message, new RegExp(`at most ${MAX_PKCS12_ITERATIONS}`));
    t.true(performance.now() - started < 200, `${label}: refused in ${performance.now() - started} ms`);
  }
  t.is(withIterationCounts(generated.p12, { mac: 1_500_000 }).length < 4096, true, 'a file of a few KB');
});

/** A PKCS#12 as OpenSSL writes it by default (PBES2/AES, encrypted certificate safe, SHA-256 MAC). */
function opensslPkcs12(subject: string, password: string): Buffer {
  const directory = mkdtempSync(path.join(os.tmpdir(), 'p12-'));
  try {
    const run = (args: string[]) => execFileSync('openssl', args, { cwd: directory, stdio: 'pipe' });
    run(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'k.pem', '-out', 'c.pem', '-days', '30', '-subj', subject]);
    run(['pkcs12', '-export', '-inkey', 'k.pem', '-in', 'c.pem', '-passout', `pass:${password}`, '-out', 'o.p12']);
    return readFileSync(path.join(directory, 'o.p12'));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

test('an OpenSSL PKCS#12 (PBES2/AES, encrypted certificate safe, SHA-256 MAC) loads; its encrypted safe is checked too', (t) => {
  const p12 = opensslPkcs12('/CN=Prueba OpenSSL/C=CO', 'clave');
  t.is(loadPkcs12(p12, 'clave').subject, 'C=CO,CN=Prueba OpenSSL');
  t.deepEqual(pkcs12Iterations(forge.asn1.fromDer(p12.toString('binary')), 'clave'), { mac: 2048, pbe: [2048, 2048] });
  // Only the encrypted safe's algorithm over the cap (the MAC untouched): still refused.
  const hostile = withIterationCounts(p12, { pbe: 5_000_000 });
  t.is(t.throws(() => loadPkcs12(hostile, 'clave'), { instanceOf: CertificateError })?.code, 'too_many_iterations');
});

test('an OpenSSL 3 PKCS#12 (PBES2/AES) whose password has letters beyond ASCII (contraseña) loads; a wrong one is still wrong_password', (t) => {
  const p12 = opensslPkcs12('/CN=Prueba Eñe/C=CO', 'contraseña Año');
  t.truthy(loadPkcs12(p12, 'contraseña Año').privateKeyPem);
  t.is(t.throws(() => loadPkcs12(p12, 'contrasena Año'), { instanceOf: CertificateError })?.code, 'wrong_password');
});

test('the DIAN activities parse a company certificate once per settings version', async (t) => {
  const database = await createTestDatabase();
  t.teardown(() => database.drop());
  const secretBox = new SecretBox(randomBytes(32));
  const company = await createCompany(database.repositories, { name: 'Cache S.A.S.', nit: '900555111' });
  const save = (generated: ReturnType<typeof generateTestPkcs12>) =>
    database.repositories.dianSettings.upsert(company.id, {
      environment: 'simulator',
      software_id: 'sw',
      software_pin_sealed: secretBox.seal('1'),
      certificate_p12_sealed: secretBox.seal(generated.p12.toString('base64')),
      certificate_password_sealed: secretBox.seal(generated.password),
      certificate_subject: 's',
      certificate_issuer: 'i',
      certificate_not_after: new Date(Date.now() + 86_400_000),
    });
  const deps = { repositories: database.repositories, secretBox, dian: { simulatorUrl: 'http://127.0.0.1:9/' } };
  await save(generateTestPkcs12('uno', { commonName: 'Primera' }));
  const first = await companyDian(deps, company.id);
  const again = await companyDian(deps, company.id);
  t.is(again.certificate, first.certificate, 'the same parsed certificate object: not parsed again');
  t.regex(first.certificate.subject, /CN=Primera/);

  await save(generateTestPkcs12('dos', { commonName: 'Segunda' }));
  const replaced = await companyDian(deps, company.id);
  t.not(replaced.certificate, first.certificate);
  t.regex(replaced.certificate.subject, /CN=Segunda/);
});
