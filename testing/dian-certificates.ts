/**
 * Throwaway signing certificates for the DIAN signature tests: a self-signed RSA-2048
 * certificate packed into a PKCS#12 with node-forge. The key pair comes from node:crypto
 * (native, milliseconds) and results are cached per process by their options.
 */
import { generateKeyPairSync } from 'node:crypto';
import forge from 'node-forge';
import { COUNTED_ALGORITHMS } from '../domain/dian/pkcs12-iterations';

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

/**
 * A copy of a PKCS#12 whose MAC and/or PBE iteration counts are rewritten in its ASN.1 (without
 * deriving anything: the MAC no longer matches, which does not matter to a file that must be
 * refused before its MAC is checked). Hostile input for the iteration cap.
 */
export function withIterationCounts(p12: Buffer, counts: { mac?: number; pbe?: number }): Buffer {
  const pfx = forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary')));
  const asn1Value = (node: forge.asn1.Asn1) => node.value as forge.asn1.Asn1[];
  if (counts.mac !== undefined) asn1Value(asn1Value(pfx)[2])[2].value = forge.asn1.integerToDer(counts.mac).getBytes();
  if (counts.pbe !== undefined) rewritePbe(pfx, counts.pbe);
  return Buffer.from(forge.asn1.toDer(pfx).getBytes(), 'binary');
}

function rewritePbe(node: forge.asn1.Asn1, iterations: number): void {
  const { Class, Type } = forge.asn1;
  if (Array.isArray(node.value)) {
    const [first, second] = node.value;
    if (node.type === Type.SEQUENCE && first?.type === Type.OID && typeof first.value === 'string' && COUNTED_ALGORITHMS.has(forge.asn1.derToOid(first.value))) {
      (second.value as forge.asn1.Asn1[])[1].value = forge.asn1.integerToDer(iterations).getBytes();
    }
    for (const child of node.value) rewritePbe(child, iterations);
  } else if (node.tagClass === Class.UNIVERSAL && node.type === Type.OCTETSTRING && node.value.charCodeAt(0) === 0x30) {
    let inner: forge.asn1.Asn1;
    try {
      inner = forge.asn1.fromDer(node.value, { strict: true, parseAllBytes: true, decodeBitStrings: false } as unknown as boolean);
    } catch {
      return;
    }
    rewritePbe(inner, iterations);
    node.value = forge.asn1.toDer(inner).getBytes();
  }
}
