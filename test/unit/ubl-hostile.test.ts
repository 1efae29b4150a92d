import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseUbl } from '../../domain/ubl/parse';
import { UblParseError } from '../../domain/ubl/types';

// Hostile input: each case must fail with the right code, fast (no expansion, no hang).

const FIXTURES = path.resolve(__dirname, '../../../shared/fixtures/dian');
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

test('a huge text node or attribute value is rejected', (t) => {
  t.timeout(5000);
  const xml = fixture('creditnote-usd.xml');
  failsWith(t, () => parseUbl(xml.replace('<cbc:Note>', `<cbc:Note>${'A'.repeat(2 * 1024 * 1024)}`)), 'xml_too_large');
  failsWith(t, () => parseUbl(xml.replace('<cbc:Note>', `<cbc:Note languageID="${'a'.repeat(2 * 1024 * 1024)}">`)), 'xml_too_large');
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
