import test from 'ava';
import { contentTypeFor, detectFileType, extensionFor } from '../../domain/files/detect';

const bytes = (text: string) => Buffer.from(text, 'latin1');

test('PDF: %PDF- at the start or within the first 1024 bytes', (t) => {
  t.is(detectFileType(bytes('%PDF-1.7\n%âãÏÓ\n1 0 obj')), 'pdf');
  t.is(detectFileType(Buffer.concat([Buffer.alloc(500, 0x00), bytes('%PDF-1.4\n')])), 'pdf');
  t.is(detectFileType(Buffer.concat([Buffer.alloc(1019, 0x20), bytes('%PDF-1.4\n')])), 'pdf');
  t.is(detectFileType(Buffer.concat([Buffer.alloc(1030, 0x01), bytes('%PDF-1.4\n')])), null);
});

test('ZIP: local file header or an empty archive', (t) => {
  t.is(detectFileType(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00])), 'zip');
  t.is(detectFileType(Buffer.concat([Buffer.from([0x50, 0x4b, 0x05, 0x06]), Buffer.alloc(18)])), 'zip');
  t.is(detectFileType(bytes('PK')), null);
});

test('XML: optional BOM and whitespace, then a declaration, comment or root element', (t) => {
  t.is(detectFileType(bytes('<?xml version="1.0"?><Invoice/>')), 'xml');
  t.is(detectFileType(bytes('<Invoice xmlns="urn:x"/>')), 'xml');
  t.is(detectFileType(bytes('\r\n\t  <fe:Invoice/>')), 'xml');
  t.is(detectFileType(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), bytes('\n<?xml version="1.0"?>')])), 'xml');
  t.is(detectFileType(bytes('<!-- generated --><AttachedDocument/>')), 'xml');
  t.is(detectFileType(Buffer.from('\ufeff<?xml version="1.0"?><a/>', 'utf16le')), 'xml');
  t.is(detectFileType(bytes('<?xml version="1.0"?><Invoice><cbc:Note>%PDF-1.4</cbc:Note></Invoice>')), 'xml');
});

test('anything else is null', (t) => {
  t.is(detectFileType(Buffer.alloc(0)), null);
  t.is(detectFileType(bytes('hello world')), null);
  t.is(detectFileType(bytes('< not a tag')), null);
  t.is(detectFileType(bytes('{"json": true}')), null);
  t.is(detectFileType(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), null);
});

test('extensions and content types', (t) => {
  t.deepEqual(
    (['xml', 'zip', 'pdf'] as const).map((type) => [extensionFor(type), contentTypeFor(type)]),
    [
      ['xml', 'application/xml'],
      ['zip', 'application/zip'],
      ['pdf', 'application/pdf'],
    ],
  );
});
