import os from 'node:os';
import { writeFile } from 'node:fs/promises';

/** Renders rows as a GitHub-flavoured Markdown table with right-aligned numeric columns (`---:`). */
export function markdownTable(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((title, column) => Math.max(title.length, 3, ...rows.map((row) => row[column].length)));
  const pad = (text: string, column: number) => (rightAligned[column] ? text.padStart(widths[column]) : text.padEnd(widths[column]));
  const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (rightAligned[column] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** `value` with `digits` decimals, or `missing` ('n/a' unless given) when it is null, undefined, NaN or infinite. */
export const fixed = (value: number | null | undefined, digits: number, missing = 'n/a'): string =>
  value !== null && value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : missing;

/** fixed() that shows a missing value as '–' (the ingestion and exports tables). */
export const fixedOrDash = (value: number | null | undefined, digits: number): string => fixed(value, digits, '–');

/** The machine a report was measured on, for the benchmarks' JSON output. */
export function machineInfo(loadAverageAtStart: number): {
  cpus: number;
  cpuModel: string;
  memoryGiB: number;
  node: string;
  loadAverageAtStart: number;
} {
  return {
    cpus: os.cpus().length,
    cpuModel: os.cpus()[0]?.model ?? 'unknown',
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    loadAverageAtStart: Math.round(loadAverageAtStart * 100) / 100,
  };
}

/** Writes the report as indented JSON to `jsonPath`, or prints it on one line after the table when there is none. */
export async function emitJsonReport(report: unknown, jsonPath: string | null, log: (line: string) => void): Promise<void> {
  if (jsonPath) {
    await writeFile(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
    log(`JSON written to ${jsonPath}`);
  } else {
    console.log(`\n${JSON.stringify(report)}`);
  }
}
