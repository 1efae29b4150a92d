/**
 * Throwaway signing certificates for the DIAN tests and the demo company (the simulator
 * accepts any valid signature; DIAN would not): a self-signed RSA-2048 certificate packed into
 * a PKCS#12 with node-forge. The key pair comes from node:crypto
 * (native, milliseconds) and results are cached per process by their options.
 */
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';

export type TestPkcs12Options = {
  commonName?: string;
  organization?: string;
  notBefore?: Date;
  notAfter?: Date;
  /** Hex serial number; a fixed one per commonName by default. */
  serialNumberHex?: string;
  /** false: a PKCS#12 with the certificate only (no private key). */
  includeKey?: boolean;
};

export type TestPkcs12 = {
  p12: Buffer;
  password: string;
  privateKeyPem: string;
  certificatePem: string;
};

const cache = new Map<string, TestPkcs12>();

export function generateTestPkcs12(password: string, options: TestPkcs12Options = {}): TestPkcs12 {
  const cacheKey = JSON.stringify([password, options]);
  const cached = cache.get(cacheKey);
  if (cached) return cached;

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const privateKeyPem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
  const key = forge.pki.privateKeyFromPem(privateKeyPem) as forge.pki.rsa.PrivateKey;
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.setRsaPublicKey(key.n, key.e);
  cert.serialNumber = options.serialNumberHex ?? '0a1b2c3d4e5f6071';
  const now = Date.now();
  cert.validity.notBefore = options.notBefore ?? new Date(now - 24 * 3600 * 1000);
  cert.validity.notAfter = options.notAfter ?? new Date(now + 365 * 24 * 3600 * 1000);
  const attributes = [
    { shortName: 'C', value: 'CO' },
    { shortName: 'L', value: 'Bogotá D.C.' },
    { shortName: 'O', value: options.organization ?? 'Empresa de Pruebas S.A.S.' },
    { shortName: 'CN', value: options.commonName ?? 'Firma de pruebas' },
    { name: 'emailAddress', value: 'firma@example.co', valueTagClass: forge.asn1.Type.IA5STRING as unknown as forge.asn1.Class },
  ];
  cert.setSubject(attributes);
  cert.setIssuer(attributes);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, nonRepudiation: true },
  ]);
  cert.sign(key, forge.md.sha256.create());

  const asn1 = forge.pkcs12.toPkcs12Asn1(options.includeKey === false ? null : key, [cert], password, {
    algorithm: '3des',
    friendlyName: 'firma',
  });
  const result: TestPkcs12 = {
    p12: Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary'),
    password,
    privateKeyPem,
    certificatePem: forge.pki.certificateToPem(cert),
  };
  cache.set(cacheKey, result);
  return result;
}
