import test, { type ExecutionContext } from 'ava';
import AdmZip from 'adm-zip';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ArchiveError, pairPdfWithXml, readZipSafely, type ArchiveErrorCode, type ArchiveFile } from '../../domain/files/zip';

import { FIXTURES } from '../support/ingestion';
const INVOICE = readFileSync(path.join(FIXTURES, 'attached-document-volt.xml'));
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n', 'latin1');

function archive(entries: [string, Buffer | string][]): Buffer {
  const zip = new AdmZip();
  for (const [name, data] of entries) zip.addFile(name, Buffer.isBuffer(data) ? data : Buffer.from(data));
  return zip.toBuffer();
}

/** Replaces an entry name in the local and central headers (same length), bypassing any sanitising by the writer. */
function renameInPlace(zip: Buffer, from: string, to: string): Buffer {
  if (from.length !== to.length) throw new Error('same length only');
  const out = Buffer.from(zip);
  const needle = Buffer.from(from);
  let count = 0;
  for (let at = out.indexOf(needle); at !== -1; at = out.indexOf(needle, at + 1)) {
    out.write(to, at, 'latin1');
    count += 1;
  }
  if (count < 2) throw new Error(`name ${from} found ${count} times`);
  return out;
}

/** Offsets of the local (PK\3\4) and central (PK\1\2) headers. */
function headers(zip: Buffer): { local: number[]; central: number[] } {
  const find = (signature: number[]) => {
    const offsets: number[] = [];
    const needle = Buffer.from(signature);
    for (let at = zip.indexOf(needle); at !== -1; at = zip.indexOf(needle, at + 1)) offsets.push(at);
    return offsets;
  };
  return { local: find([0x50, 0x4b, 0x03, 0x04]), central: find([0x50, 0x4b, 0x01, 0x02]) };
}

function rejects(t: ExecutionContext, fn: () => unknown, code: ArchiveErrorCode): ArchiveError | undefined {
  const error = t.throws<ArchiveError>(fn, { instanceOf: ArchiveError });
  t.is(error?.code, code, error?.message);
  return error;
}

test('an XML + PDF pair is read and classified by content', (t) => {
  const contents = readZipSafely(archive([
    ['ad0800197268000230000001.xml', INVOICE],
    ['ad0800197268000230000001.pdf', PDF],
  ]));
  t.deepEqual(contents.xmls.map((file) => file.name), ['ad0800197268000230000001.xml']);
  t.true(contents.xmls[0].data.equals(INVOICE));
  t.deepEqual(contents.pdfs.map((file) => file.name), ['ad0800197268000230000001.pdf']);
  t.true(contents.pdfs[0].data.equals(PDF));
  t.deepEqual(contents.ignored, []);
  const [pair] = pairPdfWithXml(contents.xmls, contents.pdfs);
  t.is(pair.pdf?.name, 'ad0800197268000230000001.pdf');
});

test('a PDF named .xml is a pdf, an XML named .pdf is an xml', (t) => {
  const contents = readZipSafely(archive([
    ['factura.xml', PDF],
    ['representacion.pdf', INVOICE],
  ]));
  t.deepEqual(contents.pdfs.map((file) => file.name), ['factura.xml']);
  t.deepEqual(contents.xmls.map((file) => file.name), ['representacion.pdf']);
});

test('directories, __MACOSX, dot-files, nested archives and unknown content are ignored', (t) => {
  const nested = archive([['inner.xml', INVOICE]]);
  const contents = readZipSafely(archive([
    ['docs/', Buffer.alloc(0)],
    ['docs/factura.xml', INVOICE],
    ['__MACOSX/docs/._factura.xml', Buffer.from([0x00, 0x05, 0x16, 0x07])],
    ['.DS_Store', Buffer.from('Bud1')],
    ['docs/.hidden.xml', INVOICE],
    ['inner.zip', nested],
    ['readme.txt', 'hola'],
  ]));
  t.deepEqual(contents.xmls.map((file) => file.name), ['docs/factura.xml']);
  t.deepEqual(contents.pdfs, []);
  t.deepEqual(
    [...contents.ignored].sort(),
    ['.DS_Store', '__MACOSX/docs/._factura.xml', 'docs/', 'docs/.hidden.xml', 'inner.zip', 'readme.txt'],
  );
});

test('a ZIP bomb is rejected from its declared size before inflating', (t) => {
  t.timeout(10_000);
  const bomb = archive([['bomb.xml', Buffer.alloc(30 * 1024 * 1024)]]);
  t.true(bomb.length < 200 * 1024);
  t.regex(rejects(t, () => readZipSafely(bomb), 'archive_too_large')?.message ?? '', /bomb\.xml/);
});

test('an entry expanding more than 100:1 is rejected by ratio', (t) => {
  t.timeout(10_000);
  const zeros = archive([['zeros.xml', Buffer.alloc(5 * 1024 * 1024)]]);
  rejects(t, () => readZipSafely(zeros), 'compression_ratio');
  // Raising the ratio limit lets it through: the size limits alone accept 5 MiB.
  t.is(readZipSafely(zeros, { maxCompressionRatio: 100_000 }).ignored.length, 1);
});

test('an entry that inflates beyond its declared size is stopped', (t) => {
  t.timeout(10_000);
  const zip = archive([['liar.xml', Buffer.alloc(5 * 1024 * 1024)]]);
  const { local, central } = headers(zip);
  const lying = Buffer.from(zip);
  lying.writeUInt32LE(100_000, local[0] + 22); // uncompressed size in the local header
  lying.writeUInt32LE(100_000, central[0] + 24); // ... and in the central directory
  rejects(t, () => readZipSafely(lying), 'archive_too_large');
});

test('too many entries, and too much in total', (t) => {
  const many = archive(Array.from({ length: 51 }, (_, index): [string, string] => [`f${index}.xml`, '<a/>']));
  rejects(t, () => readZipSafely(many), 'too_many_entries');
  t.is(readZipSafely(many, { maxEntries: 60 }).xmls.length, 51);
  const big = archive([
    ['a.xml', randomBytes(600 * 1024)],
    ['b.xml', randomBytes(600 * 1024)],
  ]);
  rejects(t, () => readZipSafely(big, { maxTotalBytes: 1024 * 1024 }), 'archive_too_large');
  rejects(t, () => readZipSafely(big, { maxEntryBytes: 512 * 1024 }), 'archive_too_large');
});

test('path traversal and absolute names are rejected', (t) => {
  const traversal = renameInPlace(archive([['xx/evil.xml', INVOICE]]), 'xx/evil.xml', '../evil.xml');
  t.regex(rejects(t, () => readZipSafely(traversal), 'unsafe_entry_name')?.message ?? '', /\.\.\/evil\.xml/);
  const absolute = renameInPlace(archive([['xabs.xml', INVOICE]]), 'xabs.xml', '/abs.xml');
  rejects(t, () => readZipSafely(absolute), 'unsafe_entry_name');
  const nested = renameInPlace(archive([['a/xx/b.xml', INVOICE]]), 'a/xx/b.xml', 'a/../b.xml');
  rejects(t, () => readZipSafely(nested), 'unsafe_entry_name');
  // A backslash is a separator (older Windows tools write folder\\file): traversal through it is refused too.
  const backslashTraversal = renameInPlace(archive([['xx/evil.xml', INVOICE]]), 'xx/evil.xml', '..\\evil.xml');
  rejects(t, () => readZipSafely(backslashTraversal), 'unsafe_entry_name');
  const backslashDrive = renameInPlace(archive([['cxxb.xml', INVOICE]]), 'cxxb.xml', 'C:\\b.xml');
  rejects(t, () => readZipSafely(backslashDrive), 'unsafe_entry_name');
  const drive = renameInPlace(archive([['cx/b.xml', INVOICE]]), 'cx/b.xml', 'C:/b.xml');
  rejects(t, () => readZipSafely(drive), 'unsafe_entry_name');
});

test('a folder zipped by a Windows tool (folder\\file.xml) is read, its names with forward slashes', (t) => {
  const zip = renameInPlace(archive([['FE1/ad.xml', INVOICE], ['FE1/ad.pdf', PDF]]), 'FE1/ad', 'FE1\\ad');
  const contents = readZipSafely(zip);
  t.deepEqual(contents.xmls.map((file) => file.name), ['FE1/ad.xml']);
  t.deepEqual(contents.pdfs.map((file) => file.name), ['FE1/ad.pdf']);
});

test('an unreadable archive is described without the library\'s name', (t) => {
  const duplicate = renameInPlace(archive([['ab.xml', INVOICE], ['ac.xml', INVOICE]]), 'ac.xml', 'ab.xml');
  const error = rejects(t, () => readZipSafely(duplicate), 'corrupt_archive');
  t.notRegex(error?.message ?? '', /adm-zip/i);
});

test('an encrypted entry is rejected', (t) => {
  const zip = Buffer.from(archive([['factura.xml', INVOICE]]));
  const { local, central } = headers(zip);
  zip.writeUInt16LE(zip.readUInt16LE(local[0] + 6) | 1, local[0] + 6);
  zip.writeUInt16LE(zip.readUInt16LE(central[0] + 8) | 1, central[0] + 8);
  rejects(t, () => readZipSafely(zip), 'encrypted_archive');
  // The flag in the local header alone is enough.
  const localOnly = Buffer.from(archive([['factura.xml', INVOICE]]));
  localOnly.writeUInt16LE(localOnly.readUInt16LE(6) | 1, 6);
  rejects(t, () => readZipSafely(localOnly), 'encrypted_archive');
});

test('corrupt archives', (t) => {
  const random = Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), randomBytes(4096)]);
  rejects(t, () => readZipSafely(random), 'corrupt_archive');
  const valid = archive([['factura.xml', INVOICE]]);
  rejects(t, () => readZipSafely(valid.subarray(0, valid.length - 30)), 'corrupt_archive');
  const { local } = headers(valid);
  const flipped = Buffer.from(valid);
  const dataStart = local[0] + 30 + flipped.readUInt16LE(local[0] + 26) + flipped.readUInt16LE(local[0] + 28);
  flipped[dataStart + 100] ^= 0xff;
  rejects(t, () => readZipSafely(flipped), 'corrupt_archive');
  rejects(t, () => readZipSafely(Buffer.from('not a zip')), 'corrupt_archive');
  rejects(t, () => readZipSafely(PDF), 'corrupt_archive');
});

test('an archive without files is empty', (t) => {
  rejects(t, () => readZipSafely(new AdmZip().toBuffer()), 'empty_archive');
  rejects(t, () => readZipSafely(archive([['docs/', Buffer.alloc(0)], ['__MACOSX/._x', 'x']])), 'empty_archive');
});

test('pairPdfWithXml: same base name, else the single pair, else null', (t) => {
  const file = (name: string): ArchiveFile => ({ name, data: Buffer.alloc(0) });
  t.deepEqual(
    pairPdfWithXml([file('a/FV001.xml'), file('FV002.xml')], [file('fv002.PDF'), file('b/FV001.pdf')]).map(({ xml, pdf }) => [xml.name, pdf?.name ?? null]),
    [
      ['a/FV001.xml', 'b/FV001.pdf'],
      ['FV002.xml', 'fv002.PDF'],
    ],
  );
  t.is(pairPdfWithXml([file('ad001.xml')], [file('representacion.pdf')])[0].pdf?.name, 'representacion.pdf');
  t.deepEqual(pairPdfWithXml([file('x.xml'), file('y.xml')], [file('z.pdf')]).map(({ pdf }) => pdf), [null, null]);
  t.is(pairPdfWithXml([file('x.xml')], [file('y.pdf'), file('z.pdf')])[0].pdf, null);
  t.is(pairPdfWithXml([file('x.xml')], [])[0].pdf, null);
});
