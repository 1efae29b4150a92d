/** Renders rows as a GitHub-flavoured Markdown table with right-aligned numeric columns. */
export function markdownTable(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length), 3));
  const pad = (text: string, column: number) =>
    rightAligned[column] ? text.padStart(widths[column]) : text.padEnd(widths[column]);
  const line = (cells: string[]) => `| ${cells.map(pad).join(' | ')} |`;
  const rule = `| ${widths.map((width, column) => (rightAligned[column] ? `${'-'.repeat(width - 1)}:` : '-'.repeat(width))).join(' | ')} |`;
  return [line(header), rule, ...rows.map(line)].join('\n');
}

export const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
