import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { parseUbl } from '../../domain/ubl/parse';
import { assertSafeXml, DEFAULT_XML_LIMITS, prescanXml, type XmlLimits } from '../../domain/ubl/xml-safety';
import { parseXmlTree } from '../../domain/ubl/xml-tree';
import { UblParseError } from '../../domain/ubl/types';
import { fixedOrDash as fixed, markdownTable } from '../support/report';

/**
 * The parsing part of bench/ingestion.ts (`--parsing` runs only this; no services): in one process,
 * on one core, measured in CPU time (process.cpuUsage) so that a busy machine inflates the wall
 * clock but not the figures.
 *
 * 1. Pre-scan of 20 MB hostile XML (attribute-heavy; self-closing tags): time to refuse it under
 *    the default limits with the byte cap lifted to 32 MB (so the element/attribute caps decide),
 *    and time to scan all of it with every cap lifted (the worst case a limit never cuts short).
 * 2. Full parse (raw-text checks + pre-scan + fast-xml-parser + element tree) against raw
 *    fast-xml-parser (`new XMLParser({ ignoreAttributes: false })`, reused) on the same documents:
 *    the real DIAN fixtures, and hostile documents just inside the limits.
 * 3. parseUbl on the real DIAN fixtures: documents per CPU-second.
 */

export const FIXTURES = process.env.DIAN_FIXTURES_DIR ?? path.resolve(__dirname, '../../../shared/fixtures/dian');

export type ParsingRow = { measurement: string; n: number; value: string; unit: string; note: string };

function cpuMs<T>(fn: () => T): { ms: number; wallMs: number; result: T } {
  const wall = performance.now();
  const started = process.cpuUsage();
  const result = fn();
  const used = process.cpuUsage(started);
  return { ms: (used.user + used.system) / 1000, wallMs: performance.now() - wall, result };
}

/** Mean CPU ms per call over `iterations` calls (after `warmups`), cycling through `inputs`. */
function perCall<I>(inputs: I[], iterations: number, fn: (input: I) => unknown, warmups = Math.min(20, iterations)): number {
  for (let index = 0; index < warmups; index += 1) fn(inputs[index % inputs.length]);
  const { ms } = cpuMs(() => {
    for (let index = 0; index < iterations; index += 1) fn(inputs[index % inputs.length]);
  });
  return ms / iterations;
}

const hostile = (unit: string, bytes: number) => `<Invoice>${unit.repeat(Math.ceil(bytes / unit.length))}</Invoice>`;
const ATTRIBUTE_UNIT = '<a b="1" c="22" d="333" e="4444"/>';
const SELF_CLOSING_UNIT = '<a/>';

function refusalCode(fn: () => unknown): string {
  try {
    fn();
    return 'accepted';
  } catch (error) {
    return error instanceof UblParseError ? error.code : String(error);
  }
}

export function measureParsing(short: boolean, log: (line: string) => void): ParsingRow[] {
  const rows: ParsingRow[] = [];
  const lifted: XmlLimits = { ...DEFAULT_XML_LIMITS, maxBytes: 32 * 1024 * 1024 };
  const unlimited: XmlLimits = { ...lifted, maxElements: Number.MAX_SAFE_INTEGER, maxAttributes: Number.MAX_SAFE_INTEGER };

  // 1. Pre-scan of 20 MB.
  for (const [label, unit] of [['attribute-heavy', ATTRIBUTE_UNIT], ['self-closing tags', SELF_CLOSING_UNIT]] as const) {
    const xml = hostile(unit, 20 * 1024 * 1024);
    const refused = cpuMs(() => refusalCode(() => prescanXml(xml, lifted)));
    const whole = cpuMs(() => prescanXml(xml, unlimited));
    const bytes = Buffer.byteLength(xml);
    rows.push({ measurement: `pre-scan, 20 MB ${label}: refused by the element/attribute caps`, n: 1, value: fixed(refused.ms, 1), unit: 'CPU ms', note: `${refused.result}; wall ${fixed(refused.wallMs, 1)} ms` });
    rows.push({
      measurement: `pre-scan, 20 MB ${label}: whole document, caps lifted`,
      n: 1,
      value: fixed(whole.ms, 1),
      unit: 'CPU ms',
      note: `${whole.result.elements} elements, ${whole.result.attributes} attributes; ${fixed(bytes / 1024 / 1024 / (whole.ms / 1000), 0)} MB/s; wall ${fixed(whole.wallMs, 1)} ms`,
    });
    log(`pre-scan ${label}: refused in ${fixed(refused.ms, 1)} ms CPU, whole in ${fixed(whole.ms, 1)} ms CPU`);
  }

  // 2. Full parse against raw fast-xml-parser.
  const raw = new XMLParser({ ignoreAttributes: false });
  const real = readdirSync(FIXTURES)
    .filter((name) => name.endsWith('.xml'))
    .map((name) => readFileSync(path.join(FIXTURES, name), 'utf8'));
  const realBytes = real.reduce((sum, xml) => sum + Buffer.byteLength(xml), 0) / real.length;
  const iterations = short ? 300 : 2000;
  const cases: [string, string[], number][] = [
    [`real DIAN documents (${real.length} fixtures, ${fixed(realBytes / 1024, 0)} KB average)`, real, iterations],
    [`attribute-heavy, 2 MB (${Math.ceil((2 * 1024 * 1024) / ATTRIBUTE_UNIT.length)} elements)`, [hostile(ATTRIBUTE_UNIT, 2 * 1024 * 1024)], short ? 2 : 5],
    [`self-closing tags, 0.9 MB (240,000 elements, under the cap)`, [hostile(SELF_CLOSING_UNIT, 240_000 * 4)], short ? 2 : 5],
  ];
  for (const [label, inputs, count] of cases) {
    // Interleave to share any machine noise fairly: raw, ours, raw, ours.
    const rawMs = (perCall(inputs, count, (xml) => raw.parse(xml)) + perCall(inputs, count, (xml) => raw.parse(xml))) / 2;
    const full = (xml: string) => {
      assertSafeXml(xml);
      return parseXmlTree(xml);
    };
    const oursMs = (perCall(inputs, count, full) + perCall(inputs, count, full)) / 2;
    rows.push({ measurement: `full parse ÷ raw fast-xml-parser, ${label}`, n: count * 2, value: fixed(oursMs / rawMs, 2), unit: '×', note: `${fixed(oursMs, 2)} vs ${fixed(rawMs, 2)} CPU ms per document` });
    log(`full parse ${label}: ${fixed(oursMs, 2)} ms vs raw ${fixed(rawMs, 2)} ms (${fixed(oursMs / rawMs, 2)}×)`);
  }

  // 3. parseUbl on the real documents.
  const buffers = real.map((xml) => Buffer.from(xml));
  const ublMs = perCall(buffers, short ? 500 : 3000, (xml) => parseUbl(xml), 50);
  rows.push({ measurement: 'parseUbl, real DIAN documents, one core', n: short ? 500 : 3000, value: fixed(1000 / ublMs, 0), unit: 'documents / CPU-s', note: `${fixed(ublMs, 2)} CPU ms per document` });
  log(`parseUbl: ${fixed(1000 / ublMs, 0)} documents per CPU-second`);
  return rows;
}

export function parsingTable(rows: ParsingRow[]): string {
  return markdownTable(
    ['parsing measurement', 'n', 'value', 'unit', 'note'],
    rows.map((row) => [row.measurement, String(row.n), row.value, row.unit, row.note]),
    [false, true, true, false, false],
  );
}
