/**
 * XAdES-EPES enveloped signature of DIAN UBL documents (política de firma v2), with xml-crypto:
 * RSA-SHA256 over inclusive C14N, three references (the whole document with the
 * enveloped-signature transform, ds:KeyInfo, xades:SignedProperties), the ds:Signature placed in
 * the SECOND ext:UBLExtension/ext:ExtensionContent. And the matching verifier. Pure: no I/O.
 */
import { createHash, randomUUID, X509Certificate } from 'node:crypto';
import { DOMParser } from '@xmldom/xmldom';
import { SignedXml } from 'xml-crypto';
import { signingKey } from './signing-key';
import { assertNoDtd } from '../ubl/xml-safety';
import {
  base64ToPem,
  buildQualifyingProperties,
  C14N,
  certificateBase64,
  declareCertificate,
  DIGESTS,
  DS_NS,
  ENVELOPED,
  EXT_NS,
  RSA_SHA256,
  RSA_SHA384,
  RsaSha384Signature,
  SHA256,
  SHA384,
  Sha384Digest,
  SIGNED_PROPERTIES_TYPE,
  XADES_NS,
  XadesError,
  type SignerRole,
} from './xades-properties';

export { DIAN_SIGNATURE_POLICY, XadesError, buildQualifyingProperties, declareCertificate } from './xades-properties';
export type { SignerRole } from './xades-properties';

export type SigningCredentials = { privateKeyPem: string; certificatePem: string };

export type XadesOptions = {
  /** xades:SigningTime; now by default. Written in Colombia time (-05:00). */
  signingTime?: Date;
  /** xades:ClaimedRole: 'supplier' (the company itself, default) or 'third party' (a technology provider). */
  role?: SignerRole;
  /** Id of ds:Signature; 'xmldsig-<uuid>' by default. */
  signatureId?: string;
  /** CA certificates (PEM) to declare after the signer's in xades:SigningCertificate. */
  chainPems?: string[];
};

export type XadesVerification = {
  valid: boolean;
  reason?: string;
  certificatePem?: string;
  signingTime?: string;
};


function parse(xml: string): Document {
  const errors: string[] = [];
  assertNoDtd(xml);
  const doc = new DOMParser({
    errorHandler: { warning: () => undefined, error: (m: string) => errors.push(m), fatalError: (m: string) => errors.push(m) },
  }).parseFromString(xml, 'text/xml');
  if (errors.length > 0 || !doc.documentElement) throw new XadesError('malformed_xml', `malformed XML: ${errors[0] ?? 'no root element'}`);
  return doc as unknown as Document;
}

function children(parent: Element | null | undefined, ns: string, name: string): Element[] {
  if (!parent) return [];
  return Array.from(parent.childNodes).filter(
    (node): node is Element => node.nodeType === 1 && (node as Element).namespaceURI === ns && (node as Element).localName === name,
  );
}

function child(parent: Element | null | undefined, ns: string, name: string): Element | undefined {
  return children(parent, ns, name)[0];
}

function signatureSlot(doc: Document): Element {
  const extensions = child(doc.documentElement, EXT_NS, 'UBLExtensions');
  const content = child(children(extensions, EXT_NS, 'UBLExtension')[1], EXT_NS, 'ExtensionContent');
  if (!content) {
    throw new XadesError('no_signature_slot', 'the document has no second ext:UBLExtension/ext:ExtensionContent for the signature');
  }
  if (Array.from(content.childNodes).some((node) => node.nodeType === 1)) {
    throw new XadesError('no_signature_slot', 'the second ext:UBLExtension/ext:ExtensionContent is not empty (already signed?)');
  }
  return content;
}

function registerExtraAlgorithms(signedXml: SignedXml): void {
  signedXml.HashAlgorithms[SHA384] = Sha384Digest;
  signedXml.SignatureAlgorithms[RSA_SHA384] = RsaSha384Signature;
}

/** XPath of the second UBLExtension's ExtensionContent (the slot checked by signatureSlot). */
const SLOT_XPATH =
  `/*/*[local-name()='UBLExtensions' and namespace-uri()='${EXT_NS}']` +
  `/*[local-name()='UBLExtension' and namespace-uri()='${EXT_NS}'][2]` +
  `/*[local-name()='ExtensionContent' and namespace-uri()='${EXT_NS}']`;

/**
 * Signs a DIAN UBL document (XAdES-EPES). Returns the signed XML; the text outside the
 * signature is re-serialized by xmldom but otherwise unchanged. Throws XadesError.
 */
export function signXadesEpes(xml: string, credentials: SigningCredentials, options: XadesOptions = {}): string {
  const signatureId = options.signatureId ?? `xmldsig-${randomUUID()}`;
  const declareXadesNamespace = parse(xml).documentElement.lookupNamespaceURI('xades') !== XADES_NS;
  const qualifyingProperties = buildQualifyingProperties({
    signatureId,
    signedPropertiesId: `${signatureId}-signedprops`,
    signingTime: options.signingTime ?? new Date(),
    certificates: [credentials.certificatePem, ...(options.chainPems ?? [])].map(declareCertificate),
    role: options.role ?? 'supplier',
    declareXadesNamespace,
  });
  return signEnvelopedXades(xml, credentials, { signatureId, qualifyingProperties });
}

/**
 * Low level: signs with a caller-built xades:QualifyingProperties (its SignedProperties Id must
 * be `${signatureId}-signedprops`). signXadesEpes is what callers want.
 */
export function signEnvelopedXades(
  xml: string,
  credentials: SigningCredentials,
  { signatureId, qualifyingProperties }: { signatureId: string; qualifyingProperties: string },
): string {
  const doc = parse(xml);
  signatureSlot(doc);
  if (!/^[A-Za-z_][A-Za-z0-9_.-]*$/.test(signatureId)) throw new XadesError('invalid_credentials', 'signatureId must be an XML NCName');
  const keyInfoId = `${signatureId}-keyinfo`;
  const existingPrefixes: Record<string, string> = { ds: DS_NS };
  if (doc.documentElement.lookupNamespaceURI('xades') === XADES_NS) existingPrefixes.xades = XADES_NS;

  const signedXml = new SignedXml({
    privateKey: signingKey(credentials.privateKeyPem),
    publicCert: base64ToPem(certificateBase64(credentials.certificatePem)),
    signatureAlgorithm: RSA_SHA256,
    canonicalizationAlgorithm: C14N,
    keyInfoAttributes: { Id: keyInfoId },
    objects: [{ content: qualifyingProperties }],
  });
  registerExtraAlgorithms(signedXml);
  signedXml.addReference({ xpath: '/*', transforms: [ENVELOPED], digestAlgorithm: SHA256, isEmptyUri: true, id: `${signatureId}-ref0` });
  signedXml.addReference({ xpath: `//*[local-name()='KeyInfo' and @Id='${keyInfoId}']`, transforms: [C14N], digestAlgorithm: SHA256 });
  signedXml.addReference({
    xpath: `//*[local-name()='SignedProperties' and @Id='${signatureId}-signedprops']`,
    transforms: [C14N],
    digestAlgorithm: SHA256,
    type: SIGNED_PROPERTIES_TYPE,
  });
  try {
    signedXml.computeSignature(xml, {
      prefix: 'ds',
      attrs: { Id: signatureId },
      location: { reference: SLOT_XPATH, action: 'append' },
      existingPrefixes,
    });
  } catch (error) {
    throw new XadesError('invalid_credentials', `the document could not be signed: ${(error as Error).message}`);
  }
  return signedXml.getSignedXml();
}

function invalid(reason: string, certificatePem?: string): XadesVerification {
  return { valid: false, reason, ...(certificatePem ? { certificatePem } : {}) };
}

function referenceFailure(uri: string, keyInfoId: string | null): string {
  if (uri === '') return 'the document digest does not match: the signed content was altered';
  if (keyInfoId && uri === `#${keyInfoId}`) return 'the ds:KeyInfo digest does not match: the certificate was replaced or altered';
  return `the digest of ${uri} (xades:SignedProperties) does not match: signing time, certificate or policy altered`;
}

/** Checks the xades:SigningCertificate against the certificate in ds:KeyInfo. Null when it matches. */
function signingCertificateProblem(signedProperties: Element, certificateDer: Buffer, serialHex: string): string | null {
  const properties = child(signedProperties, XADES_NS, 'SignedSignatureProperties');
  const certs = children(child(properties, XADES_NS, 'SigningCertificate'), XADES_NS, 'Cert');
  if (certs.length === 0) return 'xades:SigningCertificate is missing';
  const serial = BigInt(`0x${serialHex}`).toString(10);
  const matching = certs.find((cert) => {
    const digest = child(cert, XADES_NS, 'CertDigest');
    const algorithm = DIGESTS[child(digest, DS_NS, 'DigestMethod')?.getAttribute('Algorithm') ?? ''];
    const value = child(digest, DS_NS, 'DigestValue')?.textContent?.trim();
    if (!algorithm || !value) return false;
    const declaredSerial = child(child(cert, XADES_NS, 'IssuerSerial'), DS_NS, 'X509SerialNumber')?.textContent?.trim();
    return createHash(algorithm).update(certificateDer).digest('base64') === value && declaredSerial === serial;
  });
  return matching ? null : 'xades:SigningCertificate does not declare the certificate in ds:KeyInfo (digest or serial number differ)';
}

/**
 * Verifies the XAdES signature of a DIAN document: SignatureValue over SignedInfo with the
 * ds:KeyInfo certificate, every reference digest (document, KeyInfo, SignedProperties, all
 * required), and that xades:SigningCertificate declares that certificate. It does not check
 * the certificate's chain of trust, validity period or revocation.
 */
export function verifyXadesSignature(xml: string): XadesVerification {
  let doc: Document;
  try {
    doc = parse(xml);
  } catch (error) {
    return invalid((error as Error).message);
  }
  const signatures = Array.from(doc.getElementsByTagNameNS(DS_NS, 'Signature'));
  if (signatures.length !== 1) return invalid(`expected exactly one ds:Signature, found ${signatures.length}`);
  const signature = signatures[0];
  const keyInfo = child(signature, DS_NS, 'KeyInfo');
  const certificateText = keyInfo?.getElementsByTagNameNS(DS_NS, 'X509Certificate')[0]?.textContent;
  if (!keyInfo || !certificateText) return invalid('ds:KeyInfo carries no ds:X509Certificate');
  const certificatePem = base64ToPem(certificateText);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(certificatePem);
  } catch (error) {
    return invalid(`the ds:X509Certificate cannot be read: ${(error as Error).message}`);
  }

  const references = children(child(signature, DS_NS, 'SignedInfo'), DS_NS, 'Reference');
  const documentReference = references.find((ref) => ref.getAttribute('URI') === '');
  const transforms = children(child(documentReference, DS_NS, 'Transforms'), DS_NS, 'Transform');
  if (!documentReference || !transforms.some((t) => t.getAttribute('Algorithm') === ENVELOPED)) {
    return invalid('no reference to the whole document with the enveloped-signature transform', certificatePem);
  }
  const keyInfoId = keyInfo.getAttribute('Id');
  if (!keyInfoId || !references.some((ref) => ref.getAttribute('URI') === `#${keyInfoId}`)) {
    return invalid('ds:KeyInfo is not signed (no reference to its Id)', certificatePem);
  }
  const propertiesReference = references.find((ref) => ref.getAttribute('Type') === SIGNED_PROPERTIES_TYPE);
  const qualifying = child(child(signature, DS_NS, 'Object'), XADES_NS, 'QualifyingProperties');
  const signedProperties = child(qualifying, XADES_NS, 'SignedProperties');
  if (!propertiesReference || !signedProperties || propertiesReference.getAttribute('URI') !== `#${signedProperties.getAttribute('Id')}`) {
    return invalid('xades:SignedProperties is missing or not signed', certificatePem);
  }
  if (qualifying?.getAttribute('Target') !== `#${signature.getAttribute('Id')}`) {
    return invalid('xades:QualifyingProperties does not target this ds:Signature', certificatePem);
  }

  const signedXml = new SignedXml({ publicCert: certificatePem });
  registerExtraAlgorithms(signedXml);
  try {
    signedXml.loadSignature(signature as unknown as Node);
    if (!signedXml.checkSignature(xml)) {
      const failed = signedXml.getReferences().find((ref) => ref.validationError);
      return invalid(failed ? referenceFailure(failed.uri, keyInfoId) : 'a reference does not verify', certificatePem);
    }
  } catch (error) {
    const message = (error as Error).message;
    if (/signature value .* is incorrect/.test(message)) {
      return invalid('the SignatureValue does not verify with the ds:KeyInfo certificate', certificatePem);
    }
    return invalid(`the signature cannot be checked: ${message}`, certificatePem);
  }
  const problem = signingCertificateProblem(signedProperties, certificate.raw, certificate.serialNumber);
  if (problem) return invalid(problem, certificatePem);
  const signingTime = signedProperties.getElementsByTagNameNS(XADES_NS, 'SigningTime')[0]?.textContent ?? undefined;
  return { valid: true, certificatePem, ...(signingTime ? { signingTime } : {}) };
}
