import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseUbl } from '../../domain/ubl/parse';
import { UblParseError, type ParsedUbl } from '../../domain/ubl/types';
import { FIXTURES } from '../support/ingestion';
import { creditNoteReferencingTwoInvoices, TWO_REFERENCES } from '../support/multi-reference-note';

type Expected = {
  file: string;
  root: string;
  inner_root: string | null;
  number: string;
  cufe: string;
  issue_date: string;
  issue_time: string;
  supplier_nit: string;
  supplier_name: string;
  customer_nit: string;
  customer_name: string;
  currency: string;
  line_extension_amount: string;
  vat: string | null;
  payable_amount: string;
};

const EXPECTED = JSON.parse(readFileSync(path.join(FIXTURES, 'expected.json'), 'utf8')) as Expected[];
const fixture = (file: string) => readFileSync(path.join(FIXTURES, file), 'utf8');

/** Colombian time is UTC-5: the UTC instant of an IssueDate/IssueTime written with -05:00. */
function utcOf(date: string, time: string): string {
  const [hh, mm, ss] = time.slice(0, 8).split(':').map(Number);
  const [y, m, d] = date.split('-').map(Number);
  return new Date(Date.UTC(y, m - 1, d, hh + 5, mm, ss)).toISOString();
}

for (const expected of EXPECTED) {
  test(`${expected.file} parses to the values of expected.json`, (t) => {
    const parsed = parseUbl(readFileSync(path.join(FIXTURES, expected.file)));
    const document = parsed.document;
    t.is(parsed.container, expected.root === 'AttachedDocument' ? 'AttachedDocument' : null);
    t.is(document.documentType as string, expected.inner_root ?? expected.root);
    t.is(document.number, expected.number);
    t.is(document.cufe, expected.cufe);
    t.is(document.issueDate, expected.issue_date);
    t.is(document.issueTime, expected.issue_time);
    t.is(document.supplier.idNumber, expected.supplier_nit);
    t.is(document.supplier.name, expected.supplier_name);
    t.is(document.customer.idNumber, expected.customer_nit);
    t.is(document.customer.name, expected.customer_name);
    t.is(document.currency, expected.currency);
    t.is(document.subTotal, expected.line_extension_amount);
    t.is(document.vat, expected.vat);
    t.is(document.total, expected.payable_amount);
    t.is(document.issuedAt, utcOf(expected.issue_date, expected.issue_time));
    t.true(document.lines.length > 0);
    for (const line of document.lines) t.regex(line.lineExtensionAmount, /^-?\d+(\.\d+)?$/);
    t.regex(document.cufeAlgorithm ?? '', /^CU[FD]E-SHA384$/);
    if (expected.supplier_nit === '800197268') {
      t.is(document.supplier.dv, '4');
      t.is(document.supplier.idType, '31');
    }
  });
}

test("the DIAN environment comes from ProfileExecutionID: 1 production, 2 habilitación (testing), none when absent", (t) => {
  t.is(parseUbl(fixture('invoice-signed-setp.xml')).document.dianEnvironment, 'testing');
  t.is(parseUbl(fixture('attached-document-volt.xml')).document.dianEnvironment, 'production');
  const xml = fixture('creditnote-usd.xml');
  t.is(parseUbl(Buffer.from(xml.replace(/<cbc:ProfileExecutionID>2<\/cbc:ProfileExecutionID>/, ''))).document.dianEnvironment, null);
});

test('issuedAt converts the -05:00 offset to UTC', (t) => {
  t.is(parseUbl(fixture('creditnote-usd.xml')).document.issuedAt, '2019-06-21T14:15:23.000Z');
});

test('issuedAt honours another offset and assumes Colombian time without one', (t) => {
  const xml = fixture('creditnote-usd.xml');
  const withZ = parseUbl(xml.replace('09:15:23-05:00</cbc:IssueTime>', '09:15:23Z</cbc:IssueTime>')).document;
  t.is(withZ.issuedAt, '2019-06-21T09:15:23.000Z');
  const bare = parseUbl(xml.replace('09:15:23-05:00</cbc:IssueTime>', '09:15:23</cbc:IssueTime>')).document;
  t.is(bare.issueTime, '09:15:23');
  t.is(bare.issuedAt, '2019-06-21T14:15:23.000Z');
  const noTime = parseUbl(xml.replace(/<cbc:IssueTime>[^<]*<\/cbc:IssueTime>/, '')).document;
  t.is(noTime.issueTime, null);
  t.is(noTime.issuedAt, '2019-06-21T05:00:00.000Z');
});

test('credit note: reference, parties, taxes, lines, due date', (t) => {
  const document = parseUbl(fixture('creditnote-usd.xml')).document;
  t.deepEqual(document.referencedDocuments, [TWO_REFERENCES[0]]);
  t.is(document.typeCode, '91');
  t.is(document.dueDate, '2019-06-30');
  t.deepEqual(document.supplier, {
    idNumber: '800197268',
    dv: '4',
    idType: '31',
    personType: 'LEGAL',
    name: 'FACTURADOR DE EJEMPLO',
    email: 'marciaz@sistemas.net',
    phone: '6789521',
    address: 'Av. #97 - 13',
    city: 'Bogotá, D.c.',
    countryCode: 'CO',
  });
  t.is(document.customer.dv, '3');
  t.deepEqual(
    document.taxes.map((tax) => [tax.schemeId, tax.percent, tax.taxAmount]),
    [
      ['01', '19.00', '2394.01'],
      ['03', '0.000', '0.00'],
      ['04', '0.00', '0.00'],
    ],
  );
  t.deepEqual(document.lines, [
    {
      id: '1',
      description: 'Articulo 1 Prueba',
      quantity: '1.000000',
      unitCode: 'EA',
      unitPrice: '18900.00',
      lineExtensionAmount: '12600.06',
      taxes: [{ schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '12600.06', taxAmount: '2394.01' }],
      // The line's own discount: 18900.00 less 33.33 % is its 12600.06.
      allowanceCharges: [
        { chargeIndicator: false, reasonCode: null, reason: 'Descuento por cliente frecuente', percent: '33.33', amount: '6299.94', baseAmount: '18900.00' },
      ],
      freeOfCharge: false,
      referencePrice: null,
    },
  ]);
  t.is(document.notes.length, 1);
});

test('a credit note correcting two invoices keeps both references, in reading order, CUDE in lower case', (t) => {
  const document = parseUbl(creditNoteReferencingTwoInvoices()).document;
  t.is(document.number, 'NC3-2REF');
  t.deepEqual(document.referencedDocuments, [...TWO_REFERENCES]);
});

test('references read in document order whatever their kind; DiscrepancyResponse only without any', (t) => {
  const xml = fixture('creditnote-usd.xml');
  const creditNoteFirst = xml.replace(
    '<cac:BillingReference>',
    '<cac:BillingReference><cac:CreditNoteDocumentReference><cbc:ID>NC1</cbc:ID></cac:CreditNoteDocumentReference></cac:BillingReference>\n   <cac:BillingReference>',
  );
  t.deepEqual(parseUbl(creditNoteFirst).document.referencedDocuments.map((reference) => reference.number), ['NC1', 'SETP990000015']);
  const withoutBilling = parseUbl(xml.replace(/<cac:BillingReference>[\s\S]*?<\/cac:BillingReference>/, '')).document;
  t.deepEqual(withoutBilling.referencedDocuments.length, 1);
  t.is(withoutBilling.referencedDocuments[0].cufe, null, 'the discrepancy names the invoice, without its CUFE');
});

test('debit note: RequestedMonetaryTotal, DebitedQuantity lines and the invoice reference', (t) => {
  const document = parseUbl(fixture('debitnote.xml')).document;
  t.is(document.documentType, 'DebitNote');
  t.is(document.subTotal, '12600.06');
  t.is(document.total, '14994.07');
  t.is(document.lines[0].quantity, '1.000000');
  t.deepEqual(document.referencedDocuments.map((reference) => reference.number), ['SETP990000015']);
});

test('invoice: VAT sums several IVA subtotals exactly and ignores line-level taxes', (t) => {
  const document = parseUbl(fixture('invoice-signed-setp.xml')).document;
  t.is(document.vat, '2424.01'); // 2394.01 + 30.00
  t.is(document.taxes.length, 4);
  t.is(document.lines.length, 2);
  t.is(document.taxExclusiveAmount, '12787.56');
  t.is(document.taxInclusiveAmount, '15024.07');
});

test('lines come only from the document level (not from a custom tag in UBLExtensions)', (t) => {
  const document = parseUbl(fixture('toolbox-other-currency.xml')).document;
  t.is(document.lines.length, 3);
  t.deepEqual(document.lines.map((line) => line.id), ['1', '2', '3']);
  t.is(document.taxes.length, 1);
  t.is(document.vat, '570000.00');
  t.is(document.dueDate, '2023-04-08');
});

test('a single line and a single TaxTotal read the same as repeated ones', (t) => {
  const two = fixture('invoice-signed-setp.xml');
  const secondLine = /\s*<cac:InvoiceLine>(?:(?!<cac:InvoiceLine>)[\s\S])*?<cbc:ID>2<\/cbc:ID>[\s\S]*?<\/cac:InvoiceLine>/;
  t.regex(two, secondLine);
  const one = parseUbl(two.replace(secondLine, '')).document;
  t.is(one.lines.length, 1);
  t.is(one.lines[0].description, 'AV OASYS -2.25 (8.4) LENTE DE CONTATO');
  t.is(parseUbl(fixture('toolbox-excluded-vat.xml')).document.lines.length, 1);
  t.is(parseUbl(fixture('attached-document-volt.xml')).document.taxes.length, 1);
});

test('a WithholdingTaxTotal never counts as VAT', (t) => {
  const withholding = `<cac:WithholdingTaxTotal><cbc:TaxAmount currencyID="USD">100.00</cbc:TaxAmount><cac:TaxSubtotal>
    <cbc:TaxableAmount currencyID="USD">12600.06</cbc:TaxableAmount><cbc:TaxAmount currencyID="USD">100.00</cbc:TaxAmount>
    <cac:TaxCategory><cbc:Percent>15.00</cbc:Percent><cac:TaxScheme><cbc:ID>01</cbc:ID><cbc:Name>IVA</cbc:Name></cac:TaxScheme></cac:TaxCategory>
    </cac:TaxSubtotal></cac:WithholdingTaxTotal>`;
  const xml = fixture('creditnote-usd.xml').replace('<cac:LegalMonetaryTotal>', `${withholding}<cac:LegalMonetaryTotal>`);
  const document = parseUbl(xml).document;
  t.is(document.vat, '2394.01');
  t.is(document.taxes.length, 3);
});

test('a document without any IVA subtotal has vat null', (t) => {
  const document = parseUbl(fixture('toolbox-excluded-vat.xml')).document;
  t.is(document.vat, null);
  t.deepEqual(document.taxes, []);
});

/** Renames namespace prefixes (declarations and tags), and puts the root element in a prefix. */
function renamePrefixes(xml: string, renames: Record<string, string>, root: string, rootPrefix: string): string {
  let out = xml;
  for (const [from, to] of Object.entries(renames)) {
    out = out.replace(new RegExp(`(</?)${from}:`, 'g'), `$1${to}:`).replace(new RegExp(`xmlns:${from}=`, 'g'), `xmlns:${to}=`);
  }
  return out
    .replace(new RegExp(`<${root}(\\s)xmlns=`, 'g'), `<${rootPrefix}:${root}$1xmlns:${rootPrefix}=`)
    .replace(new RegExp(`</${root}>`, 'g'), `</${rootPrefix}:${root}>`);
}

test('namespace prefixes do not matter (local names only)', (t) => {
  for (const [file, root] of [
    ['creditnote-usd.xml', 'CreditNote'],
    ['invoice-signed-setp.xml', 'Invoice'],
    ['debitnote.xml', 'DebitNote'],
  ]) {
    const original = fixture(file);
    const renamed = renamePrefixes(original, { cbc: 'basic', cac: 'agg', ext: 'x' }, root, 'doc');
    t.true(renamed.includes(`<doc:${root} `) && renamed.includes('<basic:ID>') && !renamed.includes('<cbc:'), file);
    t.deepEqual(parseUbl(renamed), parseUbl(original), file);
  }
});

test('prefixes are renamed inside and outside an AttachedDocument alike', (t) => {
  const original = fixture('attached-document-volt.xml');
  let renamed = renamePrefixes(original, { cbc: 'c1', cac: 'c2' }, 'AttachedDocument', 'ad');
  renamed = renamePrefixes(renamed, {}, 'Invoice', 'fe');
  t.true(renamed.includes('<ad:AttachedDocument') && renamed.includes('<fe:Invoice'));
  t.deepEqual(parseUbl(renamed), parseUbl(original));
});

test('CRLF line endings and extra indentation do not change the result', (t) => {
  const original = fixture('creditnote-usd.xml');
  t.false(original.includes('\r\n'));
  const crlf = original.replace(/\n/g, '\r\n').replace(/>\r\n(\s*)</g, '>\r\n\t$1  <');
  t.deepEqual(parseUbl(crlf), parseUbl(original));
  t.true(fixture('toolbox-free-samples.xml').includes('\r\n'));
});

test('AttachedDocument: validation from the embedded ApplicationResponse', (t) => {
  const parsed = parseUbl(fixture('attached-document-volt.xml'));
  t.deepEqual(parsed.validation, { responseCode: '02', description: 'Documento validado por la DIAN', validationDate: '2022-04-05' });
  t.is(parsed.document.customer.idType, '13');
  t.is(parsed.document.customer.dv, null);
  t.is(parsed.document.supplier.city, 'MEDELLÍN');
});

test('AttachedDocument with the document as escaped text instead of CDATA', (t) => {
  const original = fixture('attached-document-volt.xml');
  const escaped = original.replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_whole, inner: string) =>
    inner.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;'),
  );
  t.false(escaped.includes('CDATA'));
  t.deepEqual(parseUbl(escaped), parseUbl(original));
});

test("an unreadable ApplicationResponse is not a failure: the validation is the reference's ResultOfVerification, else null", (t) => {
  const original = fixture('attached-document-volt.xml');
  const broken = original.replace('</ApplicationResponse>]]>', '</ApplicationRespo]]>');
  const parsed: ParsedUbl = parseUbl(broken);
  t.deepEqual(parsed.validation, { responseCode: '02', description: null, validationDate: '2022-04-05' });
  t.is(parseUbl(broken.replace(/<cac:ResultOfVerification>[\s\S]*?<\/cac:ResultOfVerification>/, '')).validation, null);
  t.is(parsed.document.number, 'NC424');
  const without = original.replace(/<cac:ParentDocumentLineReference>[\s\S]*<\/cac:ParentDocumentLineReference>/, '');
  t.is(parseUbl(without).validation, null);
});

test('entities are decoded; a UTF-8 BOM and an ISO-8859-1 encoding are honoured', (t) => {
  const original = fixture('creditnote-usd.xml');
  const ampersand = original.replace(/FACTURADOR DE EJEMPLO/g, 'PEREZ &amp; CIA &#x53;.A.');
  t.is(parseUbl(ampersand).document.supplier.name, 'PEREZ & CIA S.A.');
  const withBom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(original, 'utf8')]);
  t.deepEqual(parseUbl(withBom), parseUbl(original));
  const latin1 = Buffer.from(original.replace('encoding="UTF-8"', 'encoding="ISO-8859-1"'), 'latin1');
  t.is(parseUbl(latin1).document.supplier.city, 'Bogotá, D.c.');
});

function failsWith(t: ExecutionContext, fn: () => unknown, code: UblParseError['code']): UblParseError | undefined {
  const error = t.throws<UblParseError>(fn, { instanceOf: UblParseError });
  t.is(error?.code, code, error?.message);
  return error;
}

test('missing required fields name the field', (t) => {
  const xml = fixture('creditnote-usd.xml');
  const cases: [RegExp, RegExp][] = [
    [/<cbc:UUID[^>]*>[^<]*<\/cbc:UUID>/, /UUID/],
    [/<cbc:DocumentCurrencyCode[^>]*>[^<]*<\/cbc:DocumentCurrencyCode>/, /currency/],
    [/<cbc:PayableAmount[^>]*>[^<]*<\/cbc:PayableAmount>/, /PayableAmount/],
    [/<cbc:IssueDate>2019-06-21<\/cbc:IssueDate>(?=\s*<cbc:IssueTime>)/, /IssueDate/],
    [/<cac:AccountingCustomerParty>[\s\S]*<\/cac:AccountingCustomerParty>/, /customer/],
  ];
  for (const [pattern, message] of cases) {
    const error = failsWith(t, () => parseUbl(xml.replace(pattern, '')), 'missing_field');
    t.regex(error?.message ?? '', message);
  }
  const noSupplierId = xml.replace(/<cac:AccountingSupplierParty>[\s\S]*<\/cac:AccountingSupplierParty>/, (party) =>
    party.replace(/<cbc:CompanyID[^>]*>800197268<\/cbc:CompanyID>/g, ''),
  );
  t.regex(failsWith(t, () => parseUbl(noSupplierId), 'missing_field')?.message ?? '', /supplier id/);
  t.regex(failsWith(t, () => parseUbl(xml.replace('<cbc:ID>NC3</cbc:ID>', '')), 'missing_field')?.message ?? '', /number/);
});

test('a supplier without PartyTaxScheme falls back to PartyLegalEntity / PartyIdentification', (t) => {
  const xml = fixture('creditnote-usd.xml').replace(/<cac:AccountingSupplierParty>[\s\S]*<\/cac:AccountingSupplierParty>/, (party) =>
    party.replace(/<cac:PartyTaxScheme>[\s\S]*<\/cac:PartyTaxScheme>/, ''),
  );
  t.deepEqual(
    (({ idNumber, dv, idType, name }) => ({ idNumber, dv, idType, name }))(parseUbl(xml).document.supplier),
    { idNumber: '800197268', dv: '4', idType: '31', name: 'FACTURADOR DE EJEMPLO' },
  );
  const onlyIdentification = xml.replace(/<cac:AccountingSupplierParty>[\s\S]*<\/cac:AccountingSupplierParty>/, (party) =>
    party
      .replace(/<cac:PartyLegalEntity>[\s\S]*<\/cac:PartyLegalEntity>/, '')
      .replace('<cac:Party>', '<cac:Party><cac:PartyIdentification><cbc:ID schemeName="31">800.197.268-4</cbc:ID></cac:PartyIdentification>'),
  );
  const supplier = parseUbl(onlyIdentification).document.supplier;
  t.deepEqual([supplier.idNumber, supplier.dv, supplier.name], ['800197268', '4', 'Nombre Tienda']);
});

test('an amount that is not decimal text is an invalid_field', (t) => {
  const xml = fixture('creditnote-usd.xml').replace('14994.07</cbc:PayableAmount>', '14.994,07</cbc:PayableAmount>');
  failsWith(t, () => parseUbl(xml), 'invalid_field');
});

test("amounts written in xsd:decimal's other forms ('.50', '5.', '+5') read as plain decimals", (t) => {
  const xml = fixture('creditnote-usd.xml')
    .replace('14994.07</cbc:PayableAmount>', '14994.</cbc:PayableAmount>')
    .replace('12600.06</cbc:LineExtensionAmount>', '+12600.06</cbc:LineExtensionAmount>');
  const document = parseUbl(xml).document;
  t.is(document.total, '14994');
  t.is(document.subTotal, '+12600.06');
  const fraction = parseUbl(fixture('creditnote-usd.xml').replace('14994.07</cbc:PayableAmount>', '.07</cbc:PayableAmount>')).document;
  t.is(fraction.total, '0.07');
  t.is(parseUbl(fixture('creditnote-usd.xml').replace('14994.07</cbc:PayableAmount>', '-.07</cbc:PayableAmount>')).document.total, '-0.07');
  for (const bad of ['.', '-.', '1..5', '5.0.']) {
    failsWith(t, () => parseUbl(fixture('creditnote-usd.xml').replace('14994.07</cbc:PayableAmount>', `${bad}</cbc:PayableAmount>`)), 'invalid_field');
  }
});

test('unsupported roots are named in the error', (t) => {
  const error = failsWith(t, () => parseUbl('<?xml version="1.0"?><Order xmlns="urn:x"><ID>1</ID></Order>'), 'unsupported_document');
  t.regex(error?.message ?? '', /Order/);
  const response = /<ApplicationResponse[\s\S]*<\/ApplicationResponse>/.exec(fixture('attached-document-volt.xml'))![0];
  t.regex(failsWith(t, () => parseUbl(response), 'unsupported_document')?.message ?? '', /ApplicationResponse>.*a DIAN ApplicationResponse: DIAN's validation of a document or a RADIAN event, not a document to import/);
  const wrapsOrder = fixture('attached-document-volt.xml').replace(/<!\[CDATA\[<\?xml[^>]*\?><Invoice[\s\S]*?<\/Invoice>\]\]>/, '<![CDATA[<Order/>]]>');
  t.regex(failsWith(t, () => parseUbl(wrapsOrder), 'unsupported_document')?.message ?? '', /Order/);
});

test('a CUFE/CUDE written in upper case reads in lower case, the document\'s and the one it references (the same SHA-384)', (t) => {
  const xml = fixture('creditnote-usd.xml');
  const plain = parseUbl(xml).document;
  const shouted = parseUbl(xml.replace(/(<cbc:UUID[^>]*>)([0-9a-f]+)(<\/cbc:UUID>)/g, (_, open: string, code: string, close: string) => `${open}${code.toUpperCase()}${close}`)).document;
  t.not(plain.cufe, plain.cufe.toUpperCase(), 'the fixture has letters to change');
  t.is(shouted.cufe, plain.cufe);
  t.is(shouted.referencedDocuments[0].cufe, plain.referencedDocuments[0].cufe);
  const notHex = parseUbl(xml.replace(/(<cbc:UUID[^>]*>)[0-9a-f]+(<\/cbc:UUID>)/, '$1Contingencia-ABC$2')).document;
  t.is(notHex.cufe, 'Contingencia-ABC', 'a code that is no hex is kept as written');
});
