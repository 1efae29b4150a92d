/** Nearest-rank percentile of an ascending array (NaN when empty). */
export function percentile(sorted: readonly number[], fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))];
}

export const fixed = (value: number | null | undefined, digits: number): string =>
  value !== null && value !== undefined && Number.isFinite(value) ? value.toFixed(digits) : '–';

/** A GitHub-flavoured Markdown table; right-aligned columns are marked `---:`. */
export function markdownTable(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((title, column) => Math.max(title.length, 3, ...rows.map((row) => row[column].length)));
  const pad = (text: string, column: number) => (rightAligned[column] ? text.padStart(widths[column]) : text.padEnd(widths[column]));
  const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (rightAligned[column] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}
