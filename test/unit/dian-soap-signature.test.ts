import test from 'ava';
import { SignedXml } from 'xml-crypto';
import { loadPkcs12 } from '../../domain/dian/certificate';
import { signingKey } from '../../domain/dian/signing-key';
import { ALGORITHMS, buildSoapRequest, NS, verifySoapSecurity, type SoapCredentials } from '../../integrations/dian/soap';
import { generateTestPkcs12 } from '../../testing/dian-certificates';

const { p12, password } = generateTestPkcs12('clave-firma-soap', { commonName: 'Firma SOAP' });
const credentials: SoapCredentials = loadPkcs12(p12, password);

/** What buildSoapRequest produced with xml-crypto's SignedXml before it signed directly: the reference. */
function signedByXmlCrypto(unsigned: string, signTimestamp: boolean): string {
  const token = /wsu:Id="(X509-[^"]+)"/.exec(unsigned)![1]!;
  const signer = new SignedXml({
    privateKey: signingKey(credentials.privateKeyPem),
    signatureAlgorithm: ALGORITHMS.rsaSha256,
    canonicalizationAlgorithm: ALGORITHMS.excC14n,
    idMode: 'wssecurity',
    getKeyInfoContent: () => `<wsse:SecurityTokenReference><wsse:Reference URI="#${token}" ValueType="${ALGORITHMS.x509v3}"/></wsse:SecurityTokenReference>`,
  });
  if (signTimestamp) {
    signer.addReference({ xpath: `//*[local-name(.)='Timestamp' and namespace-uri(.)='${NS.wsu}']`, transforms: [ALGORITHMS.excC14n], digestAlgorithm: ALGORITHMS.sha256 });
  }
  signer.addReference({ xpath: `//*[local-name(.)='To' and namespace-uri(.)='${NS.wsa}']`, transforms: [ALGORITHMS.excC14n], digestAlgorithm: ALGORITHMS.sha256 });
  signer.computeSignature(unsigned, {
    prefix: 'ds',
    existingPrefixes: { wsse: NS.wsse, wsu: NS.wsu },
    location: { reference: `//*[local-name(.)='Security' and namespace-uri(.)='${NS.wsse}']`, action: 'append' },
  });
  return signer.getSignedXml();
}

const withoutSignature = (envelope: string) => envelope.replace(/<ds:Signature [\s\S]*<\/ds:Signature>/, '');
const signatureOf = (envelope: string) => /<ds:Signature [\s\S]*<\/ds:Signature>/.exec(envelope)?.[0];

const cases: { title: string; to: string; body: Record<string, string>; signTimestamp: boolean }[] = [
  { title: 'GetXmlByDocumentKey to the simulator', to: 'http://127.0.0.1:50001/WcfDianCustomerServices.svc', body: { trackId: 'a'.repeat(96) }, signTimestamp: true },
  { title: 'GetStatusEvent to habilitación', to: 'https://vpfe-hab.dian.gov.co/WcfDianCustomerServices.svc', body: { trackId: '3f'.repeat(48) }, signTimestamp: true },
  { title: 'an address with characters canonicalization escapes', to: `http://127.0.0.1:1/s?a=1&b="2"&c='3'&d=<4>`, body: { trackId: `x&y<z>"'` }, signTimestamp: true },
  { title: 'wsa:To only (signTimestamp false)', to: 'https://vpfe.dian.gov.co/WcfDianCustomerServices.svc', body: { nit: '900108281', date: '2026-11-23' }, signTimestamp: false },
];

for (const { title, to, body, signTimestamp } of cases) {
  test(`the direct signature is xml-crypto's, byte for byte, and verifies: ${title}`, (t) => {
    const { envelope } = buildSoapRequest('GetStatusEvent', body, credentials, to, { signTimestamp });
    const reference = signedByXmlCrypto(withoutSignature(envelope), signTimestamp);
    t.truthy(signatureOf(envelope));
    t.is(signatureOf(envelope), signatureOf(reference));
    // SignedXml re-serialised the document (&quot; in text became "); otherwise the envelopes are the same.
    if (!/["'&<>]/.test(to + Object.values(body).join(''))) t.is(envelope, reference);
    if (signTimestamp) t.deepEqual(verifySoapSecurity(envelope), { valid: true, certificatePem: verifySoapSecurity(envelope).certificatePem });
  });
}

test('a tampered wsa:To or timestamp no longer verifies', (t) => {
  const { envelope } = buildSoapRequest('GetXmlByDocumentKey', { trackId: 'abc' }, credentials, 'http://127.0.0.1:1/svc');
  t.false(verifySoapSecurity(envelope.replace('http://127.0.0.1:1/svc</wsa:To>', 'http://127.0.0.1:2/svc</wsa:To>')).valid);
  t.false(verifySoapSecurity(envelope.replace(/<wsu:Expires>[^<]+</, '<wsu:Expires>2099-01-01T00:00:00Z<')).valid);
});

test('verification refuses a signed element whose id appears twice (signature wrapping) and references it cannot check', (t) => {
  const { envelope } = buildSoapRequest('GetXmlByDocumentKey', { trackId: 'abc' }, credentials, 'http://127.0.0.1:1/svc');
  const to = /<wsa:To [\s\S]*?<\/wsa:To>/.exec(envelope)![0];
  const wrapped = envelope.replace('<soap:Body>', `<soap:Body><wrapper>${to.replace('127.0.0.1:1', '127.0.0.1:2')}</wrapper>`);
  t.regex(verifySoapSecurity(wrapped).reason ?? '', /must name exactly one element/);
  const sha1 = envelope.replace(`<ds:DigestMethod Algorithm="${ALGORITHMS.sha256}"/>`, '<ds:DigestMethod Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"/>');
  t.regex(verifySoapSecurity(sha1).reason ?? '', /unsupported digest/);
});
