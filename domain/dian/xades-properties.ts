/**
 * The XAdES-EPES pieces DIAN's signature policy (política de firma v2) asks for: algorithm
 * URIs, the policy identifier and hash, and the xades:QualifyingProperties block with
 * SigningTime, SigningCertificate, SignaturePolicyIdentifier and SignerRole. Pure.
 */
import { createHash, createSign, createVerify, X509Certificate } from 'node:crypto';
import forge from 'node-forge';
import { escapeXml } from './application-response';
import { formatDistinguishedName } from './certificate';

export const DS_NS = 'http://www.w3.org/2000/09/xmldsig#';
export const XADES_NS = 'http://uri.etsi.org/01903/v1.3.2#';
export const EXT_NS = 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2';
/** Inclusive C14N, the algorithm DIAN's examples and signature policy use. */
export const C14N = 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315';
export const ENVELOPED = 'http://www.w3.org/2000/09/xmldsig#enveloped-signature';
export const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const RSA_SHA384 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha384';
export const SHA256 = 'http://www.w3.org/2001/04/xmlenc#sha256';
export const SHA384 = 'http://www.w3.org/2001/04/xmldsig-more#sha384';
export const SIGNED_PROPERTIES_TYPE = 'http://uri.etsi.org/01903#SignedProperties';

/** Digest algorithm URI -> node:crypto name, for every digest a DIAN signature may use. */
export const DIGESTS: Record<string, string> = {
  'http://www.w3.org/2000/09/xmldsig#sha1': 'sha1',
  [SHA256]: 'sha256',
  [SHA384]: 'sha384',
  'http://www.w3.org/2001/04/xmlenc#sha512': 'sha512',
};

/**
 * DIAN's signature policy v2. The digest is the SHA-256 (base64) of the published PDF
 * (1,272,898 bytes, SHA-256 hex 74ca0cbed706e5a233818a34b48b1241e5490439d49df48e7c1a715eb9a8af46),
 * the value DIAN's own signed samples carry (/work/shared/fixtures/dian/invoice-signed-setp.xml).
 * Newer toolbox samples hash the same PDF with SHA-384 instead (sha384Digest below). DIAN's older
 * samples name it under /politicadefirma/v1/politicadefirmav2.pdf; the annex 1.9 text names /v2/.
 * Taken from public implementations that downloaded the PDF; re-check against the live PDF
 * (`openssl dgst -sha256 -binary politicadefirmav2.pdf | base64`) before production.
 */
export const DIAN_SIGNATURE_POLICY = {
  identifier: 'https://facturaelectronica.dian.gov.co/politicadefirma/v2/politicadefirmav2.pdf',
  description: 'Política de firma para facturas electrónicas de la República de Colombia',
  digestAlgorithm: SHA256,
  digestValue: 'dMoMvtcG5aIzgYo0tIsSQeVJBDnUnfSOfBpxXrmor0Y=',
  sha384Digest: 'EQC0kiWPaAME6IsEZ7WuaTWJ97Zmf6hIO69rMCVURmQxBB9ebgLrjhL5BArQ0a0l',
} as const;

export type SignerRole = 'supplier' | 'third party';

export class XadesError extends Error {
  constructor(
    readonly code: 'malformed_xml' | 'no_signature_slot' | 'invalid_credentials',
    message: string,
  ) {
    super(message);
    this.name = 'XadesError';
  }
}

/** xml-crypto hash algorithm for xmldsig-more#sha384 (not built in). */
export class Sha384Digest {
  getHash(xml: string): string {
    return createHash('sha384').update(xml, 'utf8').digest('base64');
  }
  getAlgorithmName(): string {
    return SHA384;
  }
}

/** xml-crypto signature algorithm for xmldsig-more#rsa-sha384 (not built in). */
export class RsaSha384Signature {
  getSignature(signedInfo: string, privateKey: string): string {
    return createSign('RSA-SHA384').update(signedInfo).sign(privateKey, 'base64');
  }
  verifySignature(material: string, key: string, signatureValue: string): boolean {
    return createVerify('RSA-SHA384').update(material).verify(key, signatureValue, 'base64');
  }
  getAlgorithmName(): string {
    return RSA_SHA384;
  }
}

/** 'YYYY-MM-DDTHH:MM:SS.mmm-05:00': the instant in Colombia's legal time. */
export function colombiaTimestamp(instant: Date): string {
  const shifted = new Date(instant.getTime() - 5 * 3600 * 1000);
  return `${shifted.toISOString().slice(0, 23)}-05:00`;
}

/** Base64 body of a PEM certificate (first one), without armour or whitespace. */
export function certificateBase64(certificatePem: string): string {
  const match = /-----BEGIN CERTIFICATE-----([\s\S]+?)-----END CERTIFICATE-----/.exec(certificatePem);
  if (!match) throw new XadesError('invalid_credentials', 'certificatePem holds no PEM certificate');
  return match[1].replace(/\s+/g, '');
}

export function base64ToPem(base64: string): string {
  const body = base64.replace(/\s+/g, '');
  return `-----BEGIN CERTIFICATE-----\n${body.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END CERTIFICATE-----\n`;
}

export type DeclaredCertificate = { digestBase64: string; issuerName: string; serialNumber: string };

/** CertDigest (SHA-256 of the DER) and IssuerSerial of a PEM certificate, as xades:Cert declares it. */
export function declareCertificate(certificatePem: string): DeclaredCertificate {
  const base64 = certificateBase64(certificatePem);
  const der = Buffer.from(base64, 'base64');
  let serialHex: string;
  try {
    serialHex = new X509Certificate(der).serialNumber;
  } catch (error) {
    throw new XadesError('invalid_credentials', `certificatePem cannot be read: ${(error as Error).message}`);
  }
  const cert = forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.createBuffer(der.toString('binary'))));
  return {
    digestBase64: createHash('sha256').update(der).digest('base64'),
    issuerName: formatDistinguishedName(cert.issuer.attributes),
    serialNumber: BigInt(`0x${serialHex}`).toString(10),
  };
}

export type QualifyingPropertiesInput = {
  signatureId: string;
  signedPropertiesId: string;
  signingTime: Date;
  /** The signer's certificate first, then (optionally) its chain, as DIAN's samples list them. */
  certificates: DeclaredCertificate[];
  role: SignerRole;
  /** Declare xmlns:xades on QualifyingProperties (when the document root does not). */
  declareXadesNamespace?: boolean;
};

/** The xades:QualifyingProperties element (content of the ds:Object). */
export function buildQualifyingProperties(input: QualifyingPropertiesInput): string {
  const namespace = input.declareXadesNamespace ? ` xmlns:xades="${XADES_NS}"` : '';
  const certs = input.certificates
    .map(
      (cert) =>
        '<xades:Cert><xades:CertDigest>' +
        `<ds:DigestMethod Algorithm="${SHA256}"/><ds:DigestValue>${cert.digestBase64}</ds:DigestValue>` +
        '</xades:CertDigest><xades:IssuerSerial>' +
        `<ds:X509IssuerName>${escapeXml(cert.issuerName)}</ds:X509IssuerName>` +
        `<ds:X509SerialNumber>${cert.serialNumber}</ds:X509SerialNumber>` +
        '</xades:IssuerSerial></xades:Cert>',
    )
    .join('');
  return (
    `<xades:QualifyingProperties${namespace} Target="#${escapeXml(input.signatureId)}">` +
    `<xades:SignedProperties Id="${escapeXml(input.signedPropertiesId)}"><xades:SignedSignatureProperties>` +
    `<xades:SigningTime>${colombiaTimestamp(input.signingTime)}</xades:SigningTime>` +
    `<xades:SigningCertificate>${certs}</xades:SigningCertificate>` +
    '<xades:SignaturePolicyIdentifier><xades:SignaturePolicyId><xades:SigPolicyId>' +
    `<xades:Identifier>${DIAN_SIGNATURE_POLICY.identifier}</xades:Identifier>` +
    `<xades:Description>${DIAN_SIGNATURE_POLICY.description}</xades:Description>` +
    '</xades:SigPolicyId><xades:SigPolicyHash>' +
    `<ds:DigestMethod Algorithm="${DIAN_SIGNATURE_POLICY.digestAlgorithm}"/>` +
    `<ds:DigestValue>${DIAN_SIGNATURE_POLICY.digestValue}</ds:DigestValue>` +
    '</xades:SigPolicyHash></xades:SignaturePolicyId></xades:SignaturePolicyIdentifier>' +
    `<xades:SignerRole><xades:ClaimedRoles><xades:ClaimedRole>${input.role}</xades:ClaimedRole></xades:ClaimedRoles></xades:SignerRole>` +
    '</xades:SignedSignatureProperties></xades:SignedProperties></xades:QualifyingProperties>'
  );
}
