/**
 * The iteration counts a PKCS#12 file asks for, read from its ASN.1 structure WITHOUT deriving any
 * key. node-forge derives the MAC key (a pure-JavaScript PKCS#12 KDF) and every PBE key with the
 * count written in the file, synchronously: a 2.4 KB file asking for 1.5 M iterations blocks for
 * seconds, 2^31−1 for most of an hour. Real certificates use 2,048 (OpenSSL, Windows) to 10,000.
 *
 * Read here: the MAC iteration count (MacData), and every PBE parameter set visible in the file
 * (PKCS#12 PBE and PBES1 `{ salt, iterations }`, PBKDF2 inside PBES2), in the plain safes and in
 * the algorithm of each encrypted safe. Bags inside an encrypted safe are only visible once it is
 * decrypted, so an encrypted safe is decrypted (its own count already checked, so that costs at
 * most the cap) and its contents checked too, before node-forge parses anything.
 */
import forge from 'node-forge';

/** Cap on any iteration count in a PKCS#12 file (MAC or PBE); docs/operations.md. */
export const MAX_PKCS12_ITERATIONS = 100_000;

const { Class, Type } = forge.asn1;
type Asn1 = forge.asn1.Asn1;

const ENCRYPTED_DATA = '1.2.840.113549.1.7.6';
/** Algorithms whose parameters are SEQUENCE { salt, iterationCount, ... }. */
export const COUNTED_ALGORITHMS = new Set([
  // PKCS#12 PBE (RFC 7292 appendix C)
  '1.2.840.113549.1.12.1.1',
  '1.2.840.113549.1.12.1.2',
  '1.2.840.113549.1.12.1.3',
  '1.2.840.113549.1.12.1.4',
  '1.2.840.113549.1.12.1.5',
  '1.2.840.113549.1.12.1.6',
  // PBES1 (RFC 8018)
  '1.2.840.113549.1.5.1',
  '1.2.840.113549.1.5.3',
  '1.2.840.113549.1.5.4',
  '1.2.840.113549.1.5.6',
  '1.2.840.113549.1.5.10',
  '1.2.840.113549.1.5.11',
  // PBKDF2 (the key derivation of PBES2, 1.2.840.113549.1.5.13)
  '1.2.840.113549.1.5.12',
]);

export type Pkcs12Iterations = { mac: number | null; pbe: number[] };

const isSequence = (node: Asn1 | undefined): node is Asn1 & { value: Asn1[] } =>
  Boolean(node && node.tagClass === Class.UNIVERSAL && node.type === Type.SEQUENCE && Array.isArray(node.value));
const isUniversal = (node: Asn1 | undefined, type: forge.asn1.Type): node is Asn1 & { value: string } =>
  Boolean(node && node.tagClass === Class.UNIVERSAL && node.type === type && typeof node.value === 'string');

/** An INTEGER as a count; anything beyond 2^48 is reported as Infinity (it is over any cap). */
function count(node: Asn1 | undefined): number | null {
  if (!isUniversal(node, Type.INTEGER)) return null;
  const bytes = node.value.replace(/^\x00+/, '');
  if (bytes.length > 6) return Infinity;
  return bytes === '' ? 0 : Number.parseInt(forge.util.bytesToHex(bytes), 16);
}

/** The bytes of an OCTET STRING (or [n] IMPLICIT one), primitive or BER-constructed. */
function octets(node: Asn1): string | null {
  if (typeof node.value === 'string') return node.value;
  if (!node.constructed || !Array.isArray(node.value)) return null;
  let bytes = '';
  for (const part of node.value) {
    const chunk = octets(part);
    if (chunk === null) return null;
    bytes += chunk;
  }
  return bytes;
}

function parseDer(bytes: string): Asn1 | null {
  if (bytes.charCodeAt(0) !== 0x30) return null;
  try {
    return forge.asn1.fromDer(bytes, { strict: true, parseAllBytes: true, decodeBitStrings: false } as unknown as boolean);
  } catch {
    return null;
  }
}

/**
 * Walks a (sub)tree: records the count of every counted algorithm, descends into OCTET STRINGs
 * that hold DER (the authenticated safe, each plain SafeContents), and collects the encrypted
 * safes (EncryptedData content infos) for later.
 */
function walk(node: Asn1, found: number[], encrypted: Asn1[]): void {
  if (isSequence(node)) {
    const [first, second] = node.value;
    if (isUniversal(first, Type.OID)) {
      const oid = forge.asn1.derToOid(first.value);
      if (COUNTED_ALGORITHMS.has(oid)) {
        const value = isSequence(second) ? count(second.value[1]) : null;
        found.push(value ?? Infinity);
      } else if (oid === ENCRYPTED_DATA && second) {
        encrypted.push(second);
      }
    }
  }
  if (node.tagClass === Class.UNIVERSAL && node.type === Type.OCTETSTRING) {
    const bytes = octets(node);
    const inner = bytes === null ? null : parseDer(bytes);
    if (inner) walk(inner, found, encrypted);
    return;
  }
  if (Array.isArray(node.value)) for (const child of node.value) walk(child, found, encrypted);
}

/** Decrypts one encrypted safe ([0] EXPLICIT EncryptedData); null when that fails (a wrong password: forge reports it). */
function decryptSafe(explicit: Asn1, password: string): Asn1 | null {
  const encryptedData = Array.isArray(explicit.value) ? explicit.value[0] : undefined;
  const info = isSequence(encryptedData) ? encryptedData.value[1] : undefined;
  if (!isSequence(info)) return null;
  const [, algorithm, content] = info.value;
  if (!isSequence(algorithm) || !content || !isUniversal(algorithm.value[0], Type.OID)) return null;
  const bytes = octets(content);
  if (bytes === null) return null;
  try {
    const pbe = (forge.pki as unknown as { pbe: { getCipher(oid: string, params: Asn1, password: string): forge.cipher.BlockCipher } }).pbe;
    const cipher = pbe.getCipher(forge.asn1.derToOid(algorithm.value[0].value), algorithm.value[1], password);
    cipher.update(forge.util.createBuffer(bytes));
    if (!cipher.finish()) return null;
    return parseDer(cipher.output.getBytes());
  } catch {
    return null;
  }
}

/**
 * Every iteration count of a parsed PFX, checking each level against `cap` before decrypting the
 * next: an encrypted safe is only opened when every count seen so far is within the cap.
 */
export function pkcs12Iterations(pfx: Asn1, password: string, cap: number = MAX_PKCS12_ITERATIONS): Pkcs12Iterations {
  const macData = isSequence(pfx) ? pfx.value[2] : undefined;
  // MacData ::= SEQUENCE { mac DigestInfo, macSalt OCTET STRING, iterations INTEGER DEFAULT 1 }
  const mac = isSequence(macData) ? (macData.value[2] ? (count(macData.value[2]) ?? Infinity) : 1) : null;
  const pbe: number[] = [];
  const encrypted: Asn1[] = [];
  walk(pfx, pbe, encrypted);
  if (Math.max(mac ?? 0, ...pbe) > cap) return { mac, pbe };
  for (const safe of encrypted) {
    const contents = decryptSafe(safe, password);
    if (contents) walk(contents, pbe, []);
  }
  return { mac, pbe };
}
