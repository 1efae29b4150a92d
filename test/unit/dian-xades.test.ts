import { createHash, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import test from 'ava';
import { DOMParser } from '@xmldom/xmldom';
import { buildApplicationResponse, type ApplicationResponseInput } from '../../domain/dian/application-response';
import { loadPkcs12 } from '../../domain/dian/certificate';
import {
  buildQualifyingProperties,
  declareCertificate,
  DIAN_SIGNATURE_POLICY,
  signEnvelopedXades,
  signXadesEpes,
  verifyXadesSignature,
  XadesError,
} from '../../domain/dian/xades';
import { assertSafeXml } from '../../domain/ubl/xml-safety';
import { all, attribute, parseXmlTree, text } from '../../domain/ubl/xml-tree';
import { generateTestPkcs12 } from '../../testing/dian-certificates';

const FIXTURES = '/work/shared/fixtures/dian';
const DS = 'http://www.w3.org/2000/09/xmldsig#';
const EXT = 'urn:oasis:names:specification:ubl:schema:xsd:CommonExtensionComponents-2';

const EVENT: ApplicationResponseInput = {
  responseCode: '030',
  id: 'AR0001',
  issueDate: '2024-05-02',
  issueTime: '10:15:00',
  environment: 'testing',
  sender: { name: 'Ópticas GMO Colombia S.A.S. & Cía', nit: '900108281' },
  receiver: { name: 'DIAN', nit: '800197268' },
  software: { providerNit: '900108281', softwareId: '56f2ae4e-9812-4fad-9255-08fcfcd5ccb0', pin: '75315' },
  invoice: { number: 'SETP990000002', cufe: '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694' },
  issuer: { idType: '13', idNumber: '1020304050', firstName: 'Ana', familyName: 'Pérez', jobTitle: 'Contadora' },
};
const SIGNING_TIME = new Date('2024-05-02T15:15:01.250Z');

function credentials(commonName = 'Firma de pruebas') {
  const generated = generateTestPkcs12('clave', { commonName });
  return loadPkcs12(generated.p12, 'clave');
}

function signedEvent(options: Parameters<typeof signXadesEpes>[2] = {}) {
  const creds = credentials();
  return { creds, xml: signXadesEpes(buildApplicationResponse(EVENT), creds, { signingTime: SIGNING_TIME, ...options }) };
}

function dom(xml: string) {
  return new DOMParser().parseFromString(xml, 'text/xml');
}

test('a signed ApplicationResponse verifies', (t) => {
  const { xml, creds } = signedEvent();
  const result = verifyXadesSignature(xml);
  t.true(result.valid, result.reason);
  t.is(result.certificatePem?.replace(/\s+/g, ''), creds.certificatePem.replace(/\r?\n/g, '').replace(/\s+/g, ''));
  t.is(result.signingTime, '2024-05-02T10:15:01.250-05:00');
});

test('the signature sits in the second UBLExtension, with the algorithms DIAN uses', (t) => {
  const { xml } = signedEvent();
  const doc = dom(xml);
  const extensions = doc.getElementsByTagNameNS(EXT, 'UBLExtension');
  t.is(extensions.length, 2);
  t.is(extensions[0].getElementsByTagNameNS(DS, 'Signature').length, 0);
  const signature = extensions[1].getElementsByTagNameNS(EXT, 'ExtensionContent')[0].firstChild as Element;
  t.is(signature.localName, 'Signature');
  t.is(signature.namespaceURI, DS);
  const id = signature.getAttribute('Id')!;
  t.regex(id, /^xmldsig-[0-9a-f-]{36}$/);
  const algorithm = (name: string) => signature.getElementsByTagNameNS(DS, name)[0].getAttribute('Algorithm');
  t.is(algorithm('CanonicalizationMethod'), 'http://www.w3.org/TR/2001/REC-xml-c14n-20010315');
  t.is(algorithm('SignatureMethod'), 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256');
  const references = Array.from(signature.getElementsByTagNameNS(DS, 'Reference'));
  t.deepEqual(references.map((r) => r.getAttribute('URI')), ['', `#${id}-keyinfo`, `#${id}-signedprops`]);
  t.is(references[0].getElementsByTagNameNS(DS, 'Transform')[0].getAttribute('Algorithm'), 'http://www.w3.org/2000/09/xmldsig#enveloped-signature');
  t.is(references[2].getAttribute('Type'), 'http://uri.etsi.org/01903#SignedProperties');
  t.is(signature.getElementsByTagNameNS(DS, 'KeyInfo')[0].getAttribute('Id'), `${id}-keyinfo`);
});

test('SignedProperties: signing time, certificate digest and serial, DIAN policy, role', (t) => {
  const { xml, creds } = signedEvent({ role: 'third party' });
  const tree = parseXmlTree(xml);
  const signature = all(tree, 'UBLExtensions/UBLExtension/ExtensionContent/Signature')[0];
  const properties = all(signature, 'Object/QualifyingProperties/SignedProperties/SignedSignatureProperties')[0];
  t.is(text(properties, 'SigningTime'), '2024-05-02T10:15:01.250-05:00');
  t.is(text(properties, 'SigningCertificate/Cert/CertDigest/DigestValue'), createHash('sha256').update(creds.certificateDer).digest('base64'));
  t.is(text(properties, 'SigningCertificate/Cert/IssuerSerial/X509SerialNumber'), creds.serialNumber);
  t.is(text(properties, 'SigningCertificate/Cert/IssuerSerial/X509IssuerName'), creds.issuer);
  t.is(text(properties, 'SignaturePolicyIdentifier/SignaturePolicyId/SigPolicyId/Identifier'), 'https://facturaelectronica.dian.gov.co/politicadefirma/v2/politicadefirmav2.pdf');
  t.is(text(properties, 'SignaturePolicyIdentifier/SignaturePolicyId/SigPolicyHash/DigestValue'), DIAN_SIGNATURE_POLICY.digestValue);
  t.is(text(properties, 'SignerRole/ClaimedRoles/ClaimedRole'), 'third party');
  t.is(text(signature, 'KeyInfo/X509Data/X509Certificate'), new X509Certificate(creds.certificatePem).raw.toString('base64'));
  t.is(attribute(all(signature, 'Object/QualifyingProperties')[0], 'Target'), `#${attribute(signature, 'Id')}`);
});

test('the signed document is still safe, well-formed XML with the event intact', (t) => {
  const { xml } = signedEvent();
  t.notThrows(() => assertSafeXml(xml));
  const tree = parseXmlTree(xml);
  t.is(tree.name, 'ApplicationResponse');
  t.is(text(tree, 'SenderParty/PartyTaxScheme/RegistrationName'), 'Ópticas GMO Colombia S.A.S. & Cía');
  t.is(text(tree, 'DocumentResponse/Response/ResponseCode'), '030');
  t.is(all(tree, 'UBLExtensions/UBLExtension/ExtensionContent/DianExtensions').length, 1);
});

test('altering any signed text invalidates the document digest', (t) => {
  const { xml } = signedEvent();
  for (const [from, to] of [['SETP990000002<', 'SETP990000003<'], ['>Ana<', '>Ano<'], ['>030<', '>033<'], ['>UBL 2.1<', '>UBL 2.0<']]) {
    t.true(xml.includes(from), from);
    const result = verifyXadesSignature(xml.replace(from, to));
    t.false(result.valid, from);
    t.regex(result.reason ?? '', /document digest/, from);
  }
});

test('altering the signing time invalidates the SignedProperties digest', (t) => {
  const { xml } = signedEvent();
  const result = verifyXadesSignature(xml.replace('2024-05-02T10:15:01.250-05:00', '2024-05-01T10:15:01.250-05:00'));
  t.false(result.valid);
  t.regex(result.reason ?? '', /SignedProperties/);
});

test('swapping the certificate is detected', (t) => {
  const { xml, creds } = signedEvent();
  const other = credentials('Otro firmante');
  const base64 = (pem: string) => new X509Certificate(pem).raw.toString('base64');
  const swapped = xml.replace(base64(creds.certificatePem), base64(other.certificatePem));
  t.not(swapped, xml);
  const result = verifyXadesSignature(swapped);
  t.false(result.valid);
  t.regex(result.reason ?? '', /KeyInfo/);
});

test('a key that does not match the certificate fails the signature value', (t) => {
  const creds = credentials();
  const other = credentials('Otro firmante');
  const xml = signXadesEpes(buildApplicationResponse(EVENT), { privateKeyPem: other.privateKeyPem, certificatePem: creds.certificatePem });
  const result = verifyXadesSignature(xml);
  t.false(result.valid);
  t.regex(result.reason ?? '', /SignatureValue/);
});

test('a SigningCertificate that does not declare the KeyInfo certificate is rejected', (t) => {
  const creds = credentials();
  const other = credentials('Otro firmante');
  const signatureId = 'xmldsig-test';
  const qualifyingProperties = buildQualifyingProperties({
    signatureId,
    signedPropertiesId: `${signatureId}-signedprops`,
    signingTime: SIGNING_TIME,
    certificates: [declareCertificate(other.certificatePem)],
    role: 'supplier',
  });
  const xml = signEnvelopedXades(buildApplicationResponse(EVENT), creds, { signatureId, qualifyingProperties });
  const result = verifyXadesSignature(xml);
  t.false(result.valid);
  t.regex(result.reason ?? '', /SigningCertificate/);
});

test('missing or duplicated signatures and malformed XML are reported', (t) => {
  t.regex(verifyXadesSignature(buildApplicationResponse(EVENT)).reason ?? '', /exactly one ds:Signature, found 0/);
  const { xml } = signedEvent();
  const signature = /<ds:Signature[\s\S]*<\/ds:Signature>/.exec(xml)![0];
  const doubled = xml.replace('</sts:DianExtensions>', `</sts:DianExtensions>${signature}`);
  t.regex(verifyXadesSignature(doubled).reason ?? '', /exactly one ds:Signature, found 2/);
  t.false(verifyXadesSignature('<a><b></a>').valid);
  t.regex(verifyXadesSignature('<!DOCTYPE a [<!ENTITY x "y">]><a>&x;</a>').reason ?? '', /declarations/);
});

test('signing needs an empty second UBLExtension', (t) => {
  const { xml, creds } = signedEvent();
  t.is(t.throws(() => signXadesEpes(xml, creds), { instanceOf: XadesError })?.code, 'no_signature_slot');
  t.is(t.throws(() => signXadesEpes('<Invoice><a/></Invoice>', creds), { instanceOf: XadesError })?.code, 'no_signature_slot');
});

test('DIAN-signed invoice and notes (ubl21dian samples) verify', (t) => {
  for (const file of ['invoice-signed-setp.xml', 'creditnote-usd.xml', 'debitnote.xml']) {
    const result = verifyXadesSignature(readFileSync(`${FIXTURES}/${file}`, 'utf8'));
    t.true(result.valid, `${file}: ${result.reason}`);
    t.is(result.signingTime?.slice(0, 4), '2019', file);
  }
});

test('the edited toolbox samples and the anonymised volt AttachedDocument do not verify', (t) => {
  for (const file of ['toolbox-excluded-vat.xml', 'toolbox-free-samples.xml', 'toolbox-other-currency.xml', 'attached-document-volt.xml']) {
    const result = verifyXadesSignature(readFileSync(`${FIXTURES}/${file}`, 'utf8'));
    t.false(result.valid, file);
    t.truthy(result.reason, file);
  }
});
