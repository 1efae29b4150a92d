import test from 'ava';
import AdmZip from 'adm-zip';
import { eventFileName, eventZipFileName, packageEvent, EventPackageError } from '../../domain/dian/event-package';

test('event file names follow ar/z + NIT(10) + PPP + AA + hex consecutive(8)', (t) => {
  const input = { senderNit: '900108281', year: 2024, sequence: 11 };
  t.is(eventFileName(input), 'ar0900108281000240000000b.xml');
  t.is(eventZipFileName(input), 'z0900108281000240000000b.zip');
  t.is(eventFileName({ ...input, softwareCode: '001', sequence: 1 }), 'ar09001082810012400000001.xml');
});

test('event file names reject bad parts', (t) => {
  t.throws(() => eventFileName({ senderNit: '90010828-1', year: 2024, sequence: 1 }), { instanceOf: EventPackageError });
  t.throws(() => eventFileName({ senderNit: '900108281', year: 2024, sequence: 0 }), { instanceOf: EventPackageError });
  t.throws(() => eventFileName({ senderNit: '900108281', year: 24, sequence: 1 }), { instanceOf: EventPackageError });
  t.throws(() => eventFileName({ senderNit: '900108281', year: 2024, sequence: 1, softwareCode: '1' }), { instanceOf: EventPackageError });
});

test('the ZIP holds exactly the signed XML under its name', (t) => {
  const xml = '<?xml version="1.0" encoding="UTF-8"?><ApplicationResponse>Aceptación</ApplicationResponse>';
  const zip = new AdmZip(packageEvent(xml, 'ar0900108281000240000001.xml'));
  const entries = zip.getEntries();
  t.is(entries.length, 1);
  t.is(entries[0].entryName, 'ar0900108281000240000001.xml');
  t.is(entries[0].getData().toString('utf8'), xml);
});

test('packageEvent refuses path-like names and non-XML', (t) => {
  t.throws(() => packageEvent('<a/>', '../x.xml'), { instanceOf: EventPackageError });
  t.throws(() => packageEvent('<a/>', 'x.zip'), { instanceOf: EventPackageError });
  t.throws(() => packageEvent('not xml', 'x.xml'), { instanceOf: EventPackageError });
});
