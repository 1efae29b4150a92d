import test from 'ava';
import { buildApplicationResponse, organizationTypeOf } from '../../domain/dian/application-response';
import { nitCheckDigit } from '../../domain/nit';
import { parseUbl } from '../../domain/ubl/parse';
import { fixture } from '../support/ingestion';

// The supplier's organisation type (cbc:AdditionalAccountID: 1 persona jurídica, 2 natural) is read
// from the received document and becomes schemeVersionID on the receiver of our ApplicationResponse.

test('AdditionalAccountID of each party is read from real DIAN documents', (t) => {
  const setp = parseUbl(fixture('invoice-signed-setp.xml')).document;
  t.is(setp.supplier.personType, 'LEGAL');
  t.is(setp.customer.personType, 'LEGAL');
  // A supplier identified by NIT (schemeName 31) that is a natural person.
  const volt = parseUbl(fixture('attached-document-volt.xml')).document;
  t.is(volt.supplier.idType, '31');
  t.is(volt.supplier.personType, 'NATURAL');
  t.is(volt.customer.personType, 'NATURAL');
});

test('a party without AdditionalAccountID has no person type', (t) => {
  const xml = fixture('invoice-signed-setp.xml').toString('utf8').replace(/<cbc:AdditionalAccountID>1<\/cbc:AdditionalAccountID>/g, '');
  t.is(parseUbl(Buffer.from(xml, 'utf8')).document.supplier.personType, null);
});

test('the supplier\'s person type wins over its identification type; a NIT alone says nothing', (t) => {
  t.is(organizationTypeOf({ personType: 'NATURAL', idType: '31' }), '2');
  t.is(organizationTypeOf({ personType: 'LEGAL', idType: '31' }), '1');
  t.is(organizationTypeOf({ personType: null, idType: '31' }), undefined);
  t.is(organizationTypeOf({ personType: undefined, idType: '13' }), '2');
});

test('a natural-person supplier identified by NIT is schemeVersionID 2 on the ApplicationResponse\'s receiver', (t) => {
  const supplier = parseUbl(fixture('attached-document-volt.xml')).document.supplier;
  const organizationType = organizationTypeOf({ personType: supplier.personType, idType: supplier.idType });
  const xml = buildApplicationResponse({
    responseCode: '030',
    id: 'DIS1',
    issueDate: '2026-11-23',
    issueTime: '10:00:00-05:00',
    environment: 'testing',
    sender: { name: 'Ópticas GMO Colombia S.A.S.', nit: '900108281', organizationType: '1' },
    receiver: { name: supplier.name, nit: supplier.idNumber, idType: '31', ...(supplier.dv ? { dv: supplier.dv } : {}), ...(organizationType ? { organizationType } : {}) },
    software: { providerNit: '900108281', softwareId: '56f2ae4e-9812-4fad-9255-08fcfcd5ccb0', pin: '75315' },
    invoice: { number: 'FV1', cufe: 'a'.repeat(96) },
    issuer: { idType: '13', idNumber: '1020304050', firstName: 'Ana', familyName: 'Pérez', jobTitle: 'Contadora' },
  });
  const receiver = /<cac:ReceiverParty>[\s\S]*?<\/cac:ReceiverParty>/.exec(xml)![0];
  t.regex(receiver, new RegExp(`<cbc:CompanyID [^>]*schemeVersionID="2"[^>]*>${supplier.idNumber}</cbc:CompanyID>`));
  const sender = /<cac:SenderParty>[\s\S]*?<\/cac:SenderParty>/.exec(xml)![0];
  t.regex(sender, /schemeVersionID="1"/);
});

test('a first-version (fe:Invoice) identification: schemeID is the id type, never a check digit; a NIT\'s check digit is computed', (t) => {
  const setp = fixture('invoice-signed-setp.xml').toString('utf8');
  const v1 = setp
    .replace(/<cbc:CompanyID ([^>]*)schemeID="4" schemeName="31">800197268</, '<cbc:CompanyID $1schemeID="31">800197268<')
    .replace(/<cbc:CompanyID ([^>]*)schemeID="9" schemeName="31">800197268</, '<cbc:CompanyID $1schemeID="31">800197268<');
  t.not(v1, setp);
  const { supplier, customer } = parseUbl(v1).document;
  t.like(supplier, { idNumber: '800197268', idType: '31', dv: nitCheckDigit('800197268') });
  t.is(nitCheckDigit('800197268'), '4', "the fixture's own check digit");
  // UBL 2.1 as DIAN writes it now: unchanged.
  t.like(customer, { idNumber: '900108281', idType: '31', dv: '3' });
});

test("a NIT (schemeName 31) written without its schemeID gets its check digit computed; a cédula written with dots is its digits", (t) => {
  const setp = fixture('invoice-signed-setp.xml').toString('utf8');
  const noDv = setp.replace(/<cbc:CompanyID ([^>]*)schemeID="[49]" schemeName="31">800197268</g, '<cbc:CompanyID $1schemeName="31">800197268<');
  t.not(noDv, setp);
  t.like(parseUbl(noDv).document.supplier, { idNumber: '800197268', idType: '31', dv: '4' });

  const cedula = setp.replace(/<cbc:CompanyID ([^>]*)schemeID="[49]" schemeName="31">800197268</g, '<cbc:CompanyID $1schemeName="13">79.845.123<');
  t.like(parseUbl(cedula).document.supplier, { idNumber: '79845123', idType: '13', dv: null });
});
