/**
 * Reads the company's signing certificate (PKCS#12, .p12/.pfx) with node-forge: the private key,
 * the certificate that matches it, and the data XAdES needs (DER, issuer, serial number).
 * Pure: no I/O.
 */
import forge from 'node-forge';
import { MAX_PKCS12_ITERATIONS, pkcs12Iterations } from './pkcs12-iterations';

export class CertificateError extends Error {
  constructor(
    readonly code: 'invalid_pkcs12' | 'too_many_iterations' | 'wrong_password' | 'no_private_key' | 'no_certificate' | 'expired' | 'not_yet_valid',
    message: string,
  ) {
    super(message);
    this.name = 'CertificateError';
  }
}

export type LoadedCertificate = {
  privateKeyPem: string;
  certificatePem: string;
  certificateDer: Buffer;
  /** RFC 2253 style, most significant RDN last as in the DER (e.g. 'CN=…,O=…,C=CO' reversed to 'C=CO,O=…,CN=…'). */
  subject: string;
  /** Same format as subject; written into xades:IssuerSerial/ds:X509IssuerName. */
  issuer: string;
  /** Decimal serial number, as ds:X509SerialNumber carries it. */
  serialNumber: string;
  notBefore: Date;
  notAfter: Date;
  /** The other certificates in the file (CA chain), PEM. */
  chainPems: string[];
};

const SHORT_NAMES = new Set(['CN', 'C', 'L', 'ST', 'O', 'OU', 'STREET', 'DC', 'UID']);

function escapeRdnValue(value: string): string {
  return value.replace(/([,+"\\<>;=])/g, '\\$1').replace(/^([ #])/, '\\$1').replace(/ $/, '\\ ');
}

/**
 * A distinguished name as RFC 2253 writes it (and DIAN's samples show it): RDNs in reverse DER
 * order, known short names, any other attribute as OID=#hex of its DER value.
 */
export function formatDistinguishedName(attributes: forge.pki.CertificateField[]): string {
  return [...attributes]
    .reverse()
    .map((attribute) => {
      const name = attribute.shortName?.toUpperCase();
      if (name && SHORT_NAMES.has(name)) return `${name}=${escapeRdnValue(String(attribute.value))}`;
      const der = forge.asn1
        .toDer(forge.asn1.create(forge.asn1.Class.UNIVERSAL, attribute.valueTagClass as number, false, String(attribute.value)))
        .getBytes();
      return `${attribute.type}=#${forge.util.bytesToHex(der)}`;
    })
    .join(',');
}

type Bag = forge.pkcs12.Bag;

function bagsOf(p12: forge.pkcs12.Pkcs12Pfx, type: string): Bag[] {
  return p12.getBags({ bagType: type })[type] ?? [];
}

function matches(cert: forge.pki.Certificate, key: forge.pki.rsa.PrivateKey): boolean {
  const publicKey = cert.publicKey as forge.pki.rsa.PublicKey;
  return Boolean(publicKey.n && publicKey.n.equals(key.n) && publicKey.e.equals(key.e));
}

function parsePfx(p12: Buffer, password: string): forge.pkcs12.Pkcs12Pfx {
  let asn1: forge.asn1.Asn1;
  try {
    asn1 = forge.asn1.fromDer(forge.util.createBuffer(p12.toString('binary')));
  } catch (error) {
    throw new CertificateError('invalid_pkcs12', `the file is not a PKCS#12 (DER) container: ${(error as Error).message}`);
  }
  // Before node-forge derives any key with the counts the file asks for (docs/operations.md).
  const iterations = pkcs12Iterations(asn1, password);
  const highest = Math.max(iterations.mac ?? 0, ...iterations.pbe);
  if (highest > MAX_PKCS12_ITERATIONS) {
    throw new CertificateError(
      'too_many_iterations',
      `the PKCS#12 asks for ${Number.isFinite(highest) ? highest : 'more than 2^48'} key-derivation iterations; at most ${MAX_PKCS12_ITERATIONS} are accepted (re-export it with a standard tool)`,
    );
  }
  try {
    return forge.pkcs12.pkcs12FromAsn1(asn1, false, password);
  } catch (error) {
    const message = (error as Error).message;
    if (/password|MAC/i.test(message)) {
      throw new CertificateError('wrong_password', 'the certificate password is wrong (the PKCS#12 integrity check failed)');
    }
    // Decrypted with the wrong bytes, AES-CBC usually fails its padding check ("decrypt"), but
    // about once in 256 the padding passes and the garbage fails as ASN.1 instead ("Unparsed DER
    // bytes remain"): with the MAC verified, any failure of a non-ASCII password gets the UTF-8 try.
    if (/[^\x00-\x7f]/.test(password)) return withUtf8Pbes2Password(asn1, password);
    throw new CertificateError('invalid_pkcs12', `the PKCS#12 container cannot be read: ${message}`);
  }
}

/**
 * A password with letters beyond ASCII (contraseña) on a PBES2 (AES) container, OpenSSL 3's
 * default: the MAC, derived from the password as PKCS#12 prescribes (BMPString), has just been
 * verified; PBES2 derives its keys from the password's UTF-8 bytes, which node-forge does not
 * encode, so its decryption failed. The contents are read again with the UTF-8 bytes, without the
 * MAC already checked.
 */
function withUtf8Pbes2Password(asn1: forge.asn1.Asn1, password: string): forge.pkcs12.Pkcs12Pfx {
  const withoutMac: forge.asn1.Asn1 = { ...asn1, value: (asn1.value as forge.asn1.Asn1[]).slice(0, 2) };
  try {
    return forge.pkcs12.pkcs12FromAsn1(withoutMac, false, forge.util.encodeUtf8(password));
  } catch (error) {
    throw new CertificateError('invalid_pkcs12', `the PKCS#12 container cannot be read: ${(error as Error).message}`);
  }
}

/**
 * Opens a PKCS#12 and returns its private key and the certificate matching it. Throws
 * CertificateError: 'invalid_pkcs12', 'too_many_iterations' (over MAX_PKCS12_ITERATIONS, refused
 * before deriving anything), 'wrong_password', 'no_private_key', 'no_certificate',
 * 'expired' or 'not_yet_valid' (checked against options.now, default the current time).
 */
export function loadPkcs12(p12: Buffer, password: string, options: { now?: Date } = {}): LoadedCertificate {
  const pfx = parsePfx(p12, password);
  const keyBags = [...bagsOf(pfx, forge.pki.oids.pkcs8ShroudedKeyBag), ...bagsOf(pfx, forge.pki.oids.keyBag)];
  const key = keyBags.map((bag) => bag.key).find((candidate): candidate is forge.pki.rsa.PrivateKey => Boolean(candidate));
  if (!key) throw new CertificateError('no_private_key', 'the PKCS#12 holds no private key (was it exported without the key?)');
  const certificates = bagsOf(pfx, forge.pki.oids.certBag)
    .map((bag) => bag.cert)
    .filter((cert): cert is forge.pki.Certificate => Boolean(cert));
  const certificate = certificates.find((cert) => matches(cert, key));
  if (!certificate) throw new CertificateError('no_certificate', 'the PKCS#12 holds no certificate for its private key');

  const { notBefore, notAfter } = certificate.validity;
  assertCurrentlyValid({ notBefore, notAfter }, options.now);
  const der = Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certificate)).getBytes(), 'binary');
  return {
    privateKeyPem: forge.pki.privateKeyToPem(key),
    certificatePem: forge.pki.certificateToPem(certificate),
    certificateDer: der,
    subject: formatDistinguishedName(certificate.subject.attributes),
    issuer: formatDistinguishedName(certificate.issuer.attributes),
    serialNumber: BigInt(`0x${certificate.serialNumber}`).toString(10),
    notBefore,
    notAfter,
    chainPems: certificates.filter((cert) => cert !== certificate).map((cert) => forge.pki.certificateToPem(cert)),
  };
}

/** Throws CertificateError 'expired' or 'not_yet_valid' unless `now` (default: the current time) is within the validity. */
export function assertCurrentlyValid(validity: { notBefore: Date; notAfter: Date }, now: Date = new Date()): void {
  if (validity.notAfter.getTime() < now.getTime()) {
    throw new CertificateError('expired', `the certificate expired on ${validity.notAfter.toISOString()}`);
  }
  if (validity.notBefore.getTime() > now.getTime()) {
    throw new CertificateError('not_yet_valid', `the certificate is valid only from ${validity.notBefore.toISOString()}`);
  }
}
