import test from 'ava';
import { buildApplicationResponse } from '../../domain/dian/application-response';
import { parseUbl } from '../../domain/ubl/parse';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { OWN_FIXTURES } from '../support/ingestion';

// DIAN's schemeID on a party's CompanyID is the NIT's check digit (Anexo técnico 1.9: "DV del NIT",
// only with schemeName 31). A cédula (13) has none, yet some software writes schemeID on it too:
// apidian-go's real invoice identifies its supplier as schemeName="13" schemeID="1" 6382356.

test('a cédula written with a schemeID has no check digit (real apidian-go invoice)', (t) => {
  const { supplier, customer } = parseUbl(readFileSync(path.join(OWN_FIXTURES, 'apidian-go-cedula-supplier.xml'))).document;
  t.like(supplier, { idNumber: '6382356', idType: '13', dv: null, personType: 'NATURAL' });
  // The NIT keeps the check digit written in schemeID (the identification is wrapped in whitespace).
  t.like(customer, { idNumber: '900123458', idType: '31', dv: '4' });
});

test('the ApplicationResponse never writes a check digit on a receiver identified by cédula', (t) => {
  const xml = buildApplicationResponse({
    responseCode: '030',
    id: 'DIS1',
    issueDate: '2026-11-25',
    issueTime: '10:00:00-05:00',
    environment: 'testing',
    sender: { name: 'Cliente Ejemplo SAS', nit: '900123458', organizationType: '1' },
    receiver: { name: 'MONTOYA VALLEJO DIEGO FERNANDO', nit: '6382356', idType: '13', dv: '1', organizationType: '2' },
    software: { providerNit: '900123458', softwareId: '56f2ae4e-9812-4fad-9255-08fcfcd5ccb0', pin: '12345' },
    invoice: { number: 'SETP990000003', cufe: 'a'.repeat(96) },
    issuer: { idType: '13', idNumber: '1020304050', firstName: 'Ana', familyName: 'Pérez', jobTitle: 'Contadora' },
  });
  const receiver = /<cac:ReceiverParty>[\s\S]*?<\/cac:ReceiverParty>/.exec(xml)![0];
  t.regex(receiver, /<cbc:CompanyID [^>]*schemeName="13"[^>]*>6382356</);
  t.notRegex(receiver, /schemeID=/);
});
