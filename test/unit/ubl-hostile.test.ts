import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseUbl } from '../../domain/ubl/parse';
import { UblParseError } from '../../domain/ubl/types';
import { DEFAULT_XML_LIMITS, prescanXml } from '../../domain/ubl/xml-safety';
import { MAX_IDENTIFYING_TEXT_CHARS } from '../../domain/ubl/document';

// Hostile input: each case must fail with the right code, fast (no expansion, no hang).

import { FIXTURES } from '../support/ingestion';
const fixture = (file: string) => readFileSync(path.join(FIXTURES, file), 'utf8');

function failsWith(t: ExecutionContext, fn: () => unknown, code: UblParseError['code']): UblParseError | undefined {
  const error = t.throws<UblParseError>(fn, { instanceOf: UblParseError });
  t.is(error?.code, code, error?.message);
  return error;
}

test('XXE: a DOCTYPE with an external entity is rejected before parsing', (t) => {
  t.timeout(5000);
  const xxe = `<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><Invoice><cbc:ID>&xxe;</cbc:ID></Invoice>`;
  failsWith(t, () => parseUbl(xxe), 'forbidden_dtd');
  failsWith(t, () => parseUbl(Buffer.from(xxe)), 'forbidden_dtd');
  failsWith(t, () => parseUbl('<!doctype Invoice SYSTEM "http://127.0.0.1/x.dtd"><Invoice/>'), 'forbidden_dtd');
});

test('billion laughs is rejected before any expansion', (t) => {
  t.timeout(5000);
  const entities = Array.from({ length: 10 }, (_, level) =>
    level === 0 ? '<!ENTITY lol0 "lol">' : `<!ENTITY lol${level} "${`&lol${level - 1};`.repeat(10)}">`,
  ).join('');
  const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [${entities}]><Invoice><cbc:Note>&lol9;</cbc:Note></Invoice>`;
  failsWith(t, () => parseUbl(bomb), 'forbidden_dtd');
});

test('a DOCTYPE hidden in the AttachedDocument CDATA (or escaped) is rejected', (t) => {
  t.timeout(5000);
  const original = fixture('attached-document-volt.xml');
  const inCdata = original.replace('<![CDATA[<?xml version="1.0" encoding="UTF-8" standalone="no"?>', '<![CDATA[<?xml version="1.0"?><!DOCTYPE Invoice [<!ENTITY e SYSTEM "file:///etc/passwd">]>');
  t.not(inCdata, original);
  failsWith(t, () => parseUbl(inCdata), 'forbidden_dtd');
  const escaped = original.replace(/<!\[CDATA\[<\?xml[^>]*\?>([\s\S]*?)\]\]>/, (_whole, inner: string) =>
    `&lt;!DOCTYPE Invoice [&lt;!ENTITY e SYSTEM "file:///etc/passwd"&gt;]&gt;${inner.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')}`,
  );
  failsWith(t, () => parseUbl(escaped), 'forbidden_dtd');
});

test('malformed and truncated XML', (t) => {
  t.timeout(5000);
  failsWith(t, () => parseUbl('<Invoice><cbc:ID>1</cbc:Note></Invoice>'), 'malformed_xml');
  failsWith(t, () => parseUbl('not xml at all'), 'malformed_xml');
  failsWith(t, () => parseUbl(''), 'malformed_xml');
  failsWith(t, () => parseUbl('<Invoice/><Invoice/>'), 'malformed_xml');
  const xml = fixture('invoice-signed-setp.xml');
  for (const fraction of [0.1, 0.5, 0.9, 0.999]) {
    failsWith(t, () => parseUbl(xml.slice(0, Math.floor(xml.length * fraction))), 'malformed_xml');
  }
  failsWith(t, () => parseUbl(xml.slice(0, xml.indexOf('schemeName="CUFE-SHA384') + 14)), 'malformed_xml');
});

test('a 12 MB XML is rejected as too large', (t) => {
  t.timeout(5000);
  const xml = fixture('creditnote-usd.xml');
  const padding = `<cbc:Note>${'x'.repeat(1000)}</cbc:Note>\n`.repeat(12 * 1024);
  const huge = xml.replace('<cbc:DocumentCurrencyCode', `${padding}<cbc:DocumentCurrencyCode`);
  t.true(huge.length > 12 * 1024 * 1024);
  failsWith(t, () => parseUbl(huge), 'xml_too_large');
  failsWith(t, () => parseUbl(Buffer.from(huge)), 'xml_too_large');
});

test('a huge attribute value is rejected; a text node may be as large as the document (an escaped embedded invoice, a base64 attachment)', (t) => {
  t.timeout(10_000);
  const xml = fixture('creditnote-usd.xml');
  failsWith(t, () => parseUbl(xml.replace('<cbc:Note>', `<cbc:Note languageID="${'a'.repeat(2 * 1024 * 1024)}">`)), 'xml_too_large');
  const note = 'Línea &amp; detalle '.repeat(150_000); // 3 MB of one text node
  t.is(parseUbl(xml.replace('<cbc:Note>', `<cbc:Note>${note}`)).document.notes[0]?.slice(0, 16), 'Línea & detalle ');
  failsWith(t, () => parseUbl(xml.replace('<cbc:Note>', `<cbc:Note>${'A'.repeat(11 * 1024 * 1024)}`)), 'xml_too_large');
});

test('deep nesting (10,000 levels) is rejected quickly', (t) => {
  t.timeout(5000);
  const started = Date.now();
  const deep = `<Invoice>${'<a>'.repeat(10_000)}x${'</a>'.repeat(10_000)}</Invoice>`;
  failsWith(t, () => parseUbl(deep), 'xml_too_large');
  const inCdata = fixture('attached-document-volt.xml').replace('<cac:InvoiceLine>', `<cac:InvoiceLine>${'<b>'.repeat(10_000)}${'</b>'.repeat(10_000)}`);
  failsWith(t, () => parseUbl(inCdata), 'xml_too_large');
  t.true(Date.now() - started < 3000);
});

test('the pre-scan counts elements, attributes and depth of a real document', (t) => {
  const scan = prescanXml(fixture('invoice-signed-setp.xml'));
  t.true(scan.elements > 100 && scan.elements < DEFAULT_XML_LIMITS.maxElements, String(scan.elements));
  t.true(scan.attributes > 50 && scan.attributes < DEFAULT_XML_LIMITS.maxAttributes, String(scan.attributes));
  t.true(scan.maxDepth >= 3 && scan.maxDepth < 20, String(scan.maxDepth));
});

test('too many elements or attributes is refused by the pre-scan, before the full parse', (t) => {
  t.timeout(10_000);
  const selfClosing = `<Invoice>${'<a/>'.repeat(DEFAULT_XML_LIMITS.maxElements + 10)}</Invoice>`;
  let started = performance.now();
  t.regex(failsWith(t, () => parseUbl(selfClosing), 'xml_too_large')!.message, /more than 250000 elements/);
  t.true(performance.now() - started < 1000, `${performance.now() - started} ms`);
  const attributeHeavy = `<Invoice>${'<a b="1" c="2" d="3" e="4"/>'.repeat(DEFAULT_XML_LIMITS.maxAttributes / 4 + 10)}</Invoice>`;
  t.true(attributeHeavy.length < DEFAULT_XML_LIMITS.maxBytes);
  started = performance.now();
  failsWith(t, () => parseUbl(attributeHeavy), 'xml_too_large');
  t.true(performance.now() - started < 1000, `${performance.now() - started} ms`);
});

test('a 20 MB hostile document is pre-scanned (limits lifted) in well under a second and refused under the default limits at once', (t) => {
  t.timeout(10_000);
  const lifted = { ...DEFAULT_XML_LIMITS, maxBytes: 32 * 1024 * 1024, maxElements: 1e9, maxAttributes: 1e9 };
  for (const unit of ['<a b="1" c="22" d="333" e="4444"/>', '<a/>']) {
    const xml = `<Invoice>${unit.repeat(Math.ceil((20 * 1024 * 1024) / unit.length))}</Invoice>`;
    const started = performance.now();
    const scan = prescanXml(xml, lifted);
    t.true(scan.elements > 500_000);
    t.true(performance.now() - started < 2000, `${unit}: ${performance.now() - started} ms`);
    failsWith(t, () => parseUbl(Buffer.from(xml)), 'xml_too_large');
  }
});

test('well-formedness the tree builder relies on is checked by the pre-scan', (t) => {
  for (const [xml, pattern] of [
    ['<Invoice><a b=1/></Invoice>', /without quotes/],
    ['<Invoice><a></b></Invoice>', /does not close <a>/],
    ['<Invoice/>trailing', /text after the root/],
    ['<Invoice></Invoice></Invoice>', /without a start tag/],
    ['<![CDATA[x]]><Invoice/>', /CDATA section outside/],
    ['<Invoice><a', /unterminated start tag/],
    ['<Invoice>< a/></Invoice>', /starts no tag/],
  ] as const) {
    t.regex(failsWith(t, () => parseUbl(xml), 'malformed_xml')!.message, pattern, xml);
  }
});

test('characters XML forbids (a NUL, a control character), raw or as a reference, are malformed XML: they could never be stored', (t) => {
  const original = fixture('invoice-signed-setp.xml');
  for (const name of ['DI\u0000AN', 'DI\u0001AN', 'DI\u001FAN', 'DI&#0;AN', 'DI&#x1;AN', 'DI&#xD800;AN', 'DI&#x110000;AN', 'DI&#99999999999;AN']) {
    const hostile = original.replace('<cbc:RegistrationName>DIAN</cbc:RegistrationName>', `<cbc:RegistrationName>${name}</cbc:RegistrationName>`);
    t.not(hostile, original);
    const error = failsWith(t, () => parseUbl(Buffer.from(hostile)), 'malformed_xml');
    t.regex(error?.message ?? '', /XML does not allow/, JSON.stringify(name));
  }
  // Tab, line feed and carriage return are characters like any other; so are references to them.
  const allowed = original.replace('<cbc:RegistrationName>DIAN</cbc:RegistrationName>', '<cbc:RegistrationName>DI\tA&#10;N&#x9;</cbc:RegistrationName>');
  t.is(parseUbl(allowed).document.supplier.name, 'DI\tA\nN');
});

test('an amount too large to store (17 integer digits) is invalid_field, as is a VAT sum that overflows', (t) => {
  const original = fixture('invoice-signed-setp.xml');
  const payable = /<cbc:PayableAmount currencyID="COP">[^<]+<\/cbc:PayableAmount>/;
  const withPayable = (value: string) => original.replace(payable, `<cbc:PayableAmount currencyID="COP">${value}</cbc:PayableAmount>`);
  t.is(parseUbl(withPayable('9999999999999999.99')).document.total, '9999999999999999.99');
  t.is(parseUbl(withPayable('0009999999999999999.99')).document.total, '0009999999999999999.99', 'leading zeros are no digits');
  const error = failsWith(t, () => parseUbl(withPayable('10000000000000000.00')), 'invalid_field');
  t.regex(error?.message ?? '', /PayableAmount has 17 integer digits; amounts may have at most 16/);
  failsWith(t, () => parseUbl(withPayable('9'.repeat(40))), 'invalid_field');
  // Two VAT subtotals that fit one by one, whose sum (the stored vat) does not.
  const vatSum = original
    .replace('<cbc:TaxAmount currencyID="COP">2394.01</cbc:TaxAmount>', '<cbc:TaxAmount currencyID="COP">9000000000000000.00</cbc:TaxAmount>')
    .replace('<cbc:TaxAmount currencyID="COP">30.00</cbc:TaxAmount>', '<cbc:TaxAmount currencyID="COP">1000000000000000.00</cbc:TaxAmount>');
  t.regex(failsWith(t, () => parseUbl(vatSum), 'invalid_field')?.message ?? '', /the sum of the VAT amounts .* has 17 integer digits/);
});

test('an identifying text far longer than DIAN allows (a 2.5 MB supplier name) is invalid_field, so no import stores a document it cannot announce', (t) => {
  const original = fixture('invoice-signed-setp.xml');
  const longest = 'N'.repeat(MAX_IDENTIFYING_TEXT_CHARS);
  const withName = (name: string) => original.replace('<cbc:RegistrationName>DIAN</cbc:RegistrationName>', `<cbc:RegistrationName>${name}</cbc:RegistrationName>`);
  t.is(parseUbl(withName(longest)).document.supplier.name, longest);
  const error = failsWith(t, () => parseUbl(Buffer.from(withName('N'.repeat(2_500_000)))), 'invalid_field');
  t.regex(error?.message ?? '', /supplier name is 2500000 characters long; at most 1000/);
  const longNumber = original.replace(/<cbc:ID>([^<]*)<\/cbc:ID>/, `<cbc:ID>${'9'.repeat(MAX_IDENTIFYING_TEXT_CHARS + 1)}</cbc:ID>`);
  t.regex(failsWith(t, () => parseUbl(longNumber), 'invalid_field')?.message ?? '', /number \(cbc:ID\)/);
});
