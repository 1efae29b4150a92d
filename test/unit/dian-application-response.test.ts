import test from 'ava';
import { DOMParser } from '@xmldom/xmldom';
import { XMLValidator } from 'fast-xml-parser';
import {
  ApplicationResponseError,
  applicationResponseCude,
  buildApplicationResponse,
  eventDescription,
  NS,
  type ApplicationResponseInput,
} from '../../domain/dian/application-response';
import { eventCude, softwareSecurityCode } from '../../domain/dian/cude';

const CUFE = '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694';

const ACUSE: ApplicationResponseInput = {
  responseCode: '030',
  id: 'AR0001',
  issueDate: '2024-05-02',
  issueTime: '10:15:00',
  environment: 'testing',
  sender: { name: 'Ópticas GMO Colombia S.A.S.', nit: '900108281' },
  receiver: { name: 'DIAN', nit: '800197268' },
  software: { providerNit: '900108281', softwareId: '56f2ae4e-9812-4fad-9255-08fcfcd5ccb0', pin: '75315' },
  invoice: { number: 'SETP990000002', cufe: CUFE },
  issuer: { idType: '13', idNumber: '1020304050', firstName: 'Ana María', familyName: 'Pérez', jobTitle: 'Contadora', department: 'Contabilidad' },
};

function parse(xml: string) {
  t0(XMLValidator.validate(xml) === true, 'well-formed');
  return new DOMParser().parseFromString(xml, 'text/xml');
}
function t0(condition: boolean, message: string) {
  if (!condition) throw new Error(message);
}
function texts(doc: Document, ns: string, name: string): string[] {
  return Array.from(doc.getElementsByTagNameNS(ns, name)).map((node) => node.textContent ?? '');
}
function only(doc: Document, ns: string, name: string): Element {
  const nodes = doc.getElementsByTagNameNS(ns, name);
  t0(nodes.length === 1, `one ${name}, found ${nodes.length}`);
  return nodes[0];
}

test('030 header: version, profile, environment, CUDE and time with offset', (t) => {
  const doc = parse(buildApplicationResponse(ACUSE));
  const root = doc.documentElement!;
  t.is(root.localName, 'ApplicationResponse');
  t.is(root.namespaceURI, NS.applicationResponse);
  const top = (name: string) => Array.from(root.childNodes).find((n) => (n as Element).localName === name)?.textContent;
  t.is(top('UBLVersionID'), 'UBL 2.1');
  t.is(top('CustomizationID'), '1');
  t.is(top('ProfileID'), 'DIAN 2.1: ApplicationResponse de la Factura Electrónica de Venta');
  t.is(top('ProfileExecutionID'), '2');
  t.is(top('ID'), 'AR0001');
  t.is(top('IssueDate'), '2024-05-02');
  t.is(top('IssueTime'), '10:15:00-05:00');
  const uuid = Array.from(root.childNodes).find((n) => (n as Element).localName === 'UUID') as Element;
  t.is(uuid.getAttribute('schemeName'), 'CUDE-SHA384');
  t.is(uuid.getAttribute('schemeID'), '2');
  const expected = eventCude({
    id: 'AR0001', issueDate: '2024-05-02', issueTime: '10:15:00-05:00', senderNit: '900108281', receiverNit: '800197268',
    responseCode: '030', referencedDocumentId: 'SETP990000002', documentTypeCode: '01', softwarePin: '75315',
  });
  t.is(uuid.textContent, expected);
  t.is(applicationResponseCude(ACUSE), expected);
  t.is(top('ProfileExecutionID'), uuid.getAttribute('schemeID') ?? undefined);
});

test("an event on an export invoice (02) references it as 02, in DocumentTypeCode and in the CUDE", (t) => {
  const input = { ...ACUSE, invoice: { ...ACUSE.invoice, documentTypeCode: '02' } };
  const doc = parse(buildApplicationResponse(input));
  t.deepEqual(texts(doc, NS.cbc, 'DocumentTypeCode'), ['02']);
  const expected = eventCude({
    id: 'AR0001', issueDate: '2024-05-02', issueTime: '10:15:00-05:00', senderNit: '900108281', receiverNit: '800197268',
    responseCode: '030', referencedDocumentId: 'SETP990000002', documentTypeCode: '02', softwarePin: '75315',
  });
  t.is(texts(doc, NS.cbc, 'UUID')[0], expected);
  t.not(expected, applicationResponseCude(ACUSE));
});

test('production uses ProfileExecutionID 1', (t) => {
  const doc = parse(buildApplicationResponse({ ...ACUSE, environment: 'production' }));
  t.deepEqual(texts(doc, NS.cbc, 'ProfileExecutionID'), ['1']);
  const [eventUuid, invoiceUuid] = Array.from(doc.getElementsByTagNameNS(NS.cbc, 'UUID'));
  t.is(eventUuid.getAttribute('schemeID'), '1');
  t.is(invoiceUuid.getAttribute('schemeName'), 'CUFE-SHA384');
});

test('two UBLExtensions: DianExtensions first, an empty slot for the signature second', (t) => {
  const doc = parse(buildApplicationResponse({ ...ACUSE, qrCode: 'https://catalogo-vpfe-hab.dian.gov.co/document/searchqr?documentkey=abc&x=1' }));
  const extensions = doc.getElementsByTagNameNS(NS.ext, 'UBLExtension');
  t.is(extensions.length, 2);
  t.truthy(extensions[0].getElementsByTagNameNS(NS.sts, 'DianExtensions')[0]);
  const slot = extensions[1].getElementsByTagNameNS(NS.ext, 'ExtensionContent')[0];
  t.is(slot.childNodes.length, 0);
  t.deepEqual(texts(doc, NS.cbc, 'IdentificationCode'), ['CO']);
  const provider = only(doc, NS.sts, 'ProviderID');
  t.is(provider.textContent, '900108281');
  t.is(provider.getAttribute('schemeID'), '3');
  t.is(provider.getAttribute('schemeName'), '31');
  t.deepEqual(texts(doc, NS.sts, 'SoftwareID'), ['56f2ae4e-9812-4fad-9255-08fcfcd5ccb0']);
  t.deepEqual(texts(doc, NS.sts, 'SoftwareSecurityCode'), [softwareSecurityCode('56f2ae4e-9812-4fad-9255-08fcfcd5ccb0', '75315', 'AR0001')]);
  t.deepEqual(texts(doc, NS.sts, 'AuthorizationProviderID'), ['800197268']);
  t.deepEqual(texts(doc, NS.sts, 'QRCode'), ['https://catalogo-vpfe-hab.dian.gov.co/document/searchqr?documentkey=abc&x=1']);
});

test('QRCode is omitted when not given', (t) => {
  t.is(parse(buildApplicationResponse(ACUSE)).getElementsByTagNameNS(NS.sts, 'QRCode').length, 0);
});

test('sender is the buyer, receiver the supplier, both with DV, type 31 and IVA', (t) => {
  const doc = parse(buildApplicationResponse(ACUSE));
  for (const [tag, name, nit, dv] of [['SenderParty', 'Ópticas GMO Colombia S.A.S.', '900108281', '3'], ['ReceiverParty', 'DIAN', '800197268', '4']]) {
    const party = only(doc, NS.cac, tag);
    t.is(party.getElementsByTagNameNS(NS.cbc, 'RegistrationName')[0].textContent, name);
    const company = party.getElementsByTagNameNS(NS.cbc, 'CompanyID')[0];
    t.is(company.textContent, nit);
    t.is(company.getAttribute('schemeID'), dv);
    t.is(company.getAttribute('schemeName'), '31');
    const scheme = party.getElementsByTagNameNS(NS.cac, 'TaxScheme')[0];
    t.is(scheme.getElementsByTagNameNS(NS.cbc, 'ID')[0].textContent, '01');
    t.is(scheme.getElementsByTagNameNS(NS.cbc, 'Name')[0].textContent, 'IVA');
  }
});

test('document response: code, description, referenced invoice and its CUFE', (t) => {
  const doc = parse(buildApplicationResponse(ACUSE));
  t.deepEqual(texts(doc, NS.cbc, 'ResponseCode'), ['030']);
  t.deepEqual(texts(doc, NS.cbc, 'Description'), ['Acuse de recibo de Factura Electrónica de Venta']);
  const reference = only(doc, NS.cac, 'DocumentReference');
  t.is(reference.getElementsByTagNameNS(NS.cbc, 'ID')[0].textContent, 'SETP990000002');
  const cufe = reference.getElementsByTagNameNS(NS.cbc, 'UUID')[0];
  t.is(cufe.textContent, CUFE);
  t.is(cufe.getAttribute('schemeName'), 'CUFE-SHA384');
  t.is(reference.getElementsByTagNameNS(NS.cbc, 'DocumentTypeCode')[0].textContent, '01');
});

test('030 and 032 carry the issuing person', (t) => {
  for (const code of ['030', '032'] as const) {
    const doc = parse(buildApplicationResponse({ ...ACUSE, responseCode: code }));
    const person = only(doc, NS.cac, 'Person');
    t.is((person.parentNode as Element | null)?.localName, 'IssuerParty');
    const id = person.getElementsByTagNameNS(NS.cbc, 'ID')[0];
    t.is(id.textContent, '1020304050');
    t.is(id.getAttribute('schemeName'), '13');
    t.deepEqual(
      ['FirstName', 'FamilyName', 'JobTitle', 'OrganizationDepartment'].map((n) => person.getElementsByTagNameNS(NS.cbc, n)[0].textContent),
      ['Ana María', 'Pérez', 'Contadora', 'Contabilidad'],
    );
    t.deepEqual(texts(doc, NS.cbc, 'Description'), [eventDescription(code)]);
  }
});

test('030 and 032 without issuer throw a typed error; 033 does not need one', (t) => {
  for (const code of ['030', '032'] as const) {
    const error = t.throws(() => buildApplicationResponse({ ...ACUSE, responseCode: code, issuer: undefined }), { instanceOf: ApplicationResponseError });
    t.is(error?.code, 'issuer_required');
  }
  const doc = parse(buildApplicationResponse({ ...ACUSE, responseCode: '033', issuer: undefined }));
  t.is(doc.getElementsByTagNameNS(NS.cac, 'IssuerParty').length, 0);
  t.deepEqual(texts(doc, NS.cbc, 'Description'), ['Aceptación expresa']);
});

test('text and attributes are escaped', (t) => {
  const hostile = 'A&B <S.A.S.> "x" \'y\' ]]>';
  const xml = buildApplicationResponse({ ...ACUSE, sender: { ...ACUSE.sender, name: hostile }, notes: ['<nota & más>'] });
  t.false(xml.includes('<S.A.S.>'));
  const doc = parse(xml);
  t.is(only(doc, NS.cac, 'SenderParty').getElementsByTagNameNS(NS.cbc, 'RegistrationName')[0].textContent, hostile);
  t.deepEqual(texts(doc, NS.cbc, 'Note'), ['<nota & más>']);
});

test('invalid input is rejected with invalid_field', (t) => {
  const cases: Partial<ApplicationResponseInput>[] = [
    { issueDate: '2024-13-01' },
    { issueTime: '25:00:00' },
    { invoice: { number: 'X1', cufe: 'not-hex' } },
    { sender: { name: '', nit: '900108281' } },
    { sender: { name: 'X', nit: 'abc' } },
    { responseCode: '031' as never },
    { sender: { name: 'Bad \u0001 char', nit: '900108281' } },
  ];
  for (const patch of cases) {
    const error = t.throws(() => buildApplicationResponse({ ...ACUSE, ...patch }), { instanceOf: ApplicationResponseError });
    t.is(error?.code, 'invalid_field', JSON.stringify(patch));
  }
});

test('an explicit offset in IssueTime is kept, and hashed as written', (t) => {
  const doc = parse(buildApplicationResponse({ ...ACUSE, issueTime: '10:15:00-05:00' }));
  t.deepEqual(texts(doc, NS.cbc, 'IssueTime'), ['10:15:00-05:00']);
  t.is(applicationResponseCude({ ...ACUSE, issueTime: '10:15:00-05:00' }), applicationResponseCude(ACUSE));
});

test('eventDescription names the RADIAN events and rejects others', (t) => {
  t.is(eventDescription('030'), 'Acuse de recibo de Factura Electrónica de Venta');
  t.is(eventDescription('032'), 'Recibo del bien y/o prestación del servicio');
  t.is(eventDescription('033'), 'Aceptación expresa');
  t.throws(() => eventDescription('099'), { instanceOf: RangeError });
});
