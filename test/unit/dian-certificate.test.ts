import { createSign, createVerify, X509Certificate } from 'node:crypto';
import test from 'ava';
import { CertificateError, loadPkcs12 } from '../../domain/dian/certificate';
import { generateTestPkcs12 } from '../support/dian-certificates';

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
