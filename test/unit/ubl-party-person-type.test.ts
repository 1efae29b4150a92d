import test from 'ava';
import { buildApplicationResponse, organizationTypeOf } from '../../domain/dian/application-response';
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
