/**
 * Throwaway signing certificates for the DIAN tests (the generator is the demo's too,
 * admin/test-certificate.ts) and hostile PKCS#12 variants.
 */
import forge from 'node-forge';
import { COUNTED_ALGORITHMS } from '../domain/dian/pkcs12-iterations';

export { generateTestPkcs12, type TestPkcs12, type TestPkcs12Options } from '../admin/test-certificate';

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
