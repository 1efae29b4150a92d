/**
 * A table that flows down the pages of a `PageFlow`: cells wrap within their column, the
 * header row is drawn again at the top of every page the table continues on, and a row taller
 * than what is left of a page is split between pages (long rows only; short rows move whole).
 */
import { ACCENT, RULE, WHITE, baselineOffset, drawLine, lineHeight, wrapText, type Align, type PageFlow } from './layout';

export type Column = { header: string; width: number; align: Align };

export type TableOptions = {
  /** Left edge; defaults to the page margin. */
  x?: number;
  fontSize?: number;
  headerFontSize?: number;
};

const PAD_X = 4;
const PAD_Y = 3;
/** A row of at most this many lines is never split between pages. */
const KEEP_TOGETHER = 6;

export function drawTable(flow: PageFlow, columns: Column[], rows: string[][], options: TableOptions = {}): void {
  const x = options.x ?? flow.left;
  const size = options.fontSize ?? 8;
  const headerSize = options.headerFontSize ?? 7.5;
  const rowLine = lineHeight(size);
  const tableWidth = columns.reduce((sum, column) => sum + column.width, 0);

  const headerCells = columns.map((column) => wrapText(column.header, flow.fonts.bold, headerSize, column.width - 2 * PAD_X));
  const headerHeight = Math.max(...headerCells.map((cell) => cell.length)) * lineHeight(headerSize) + 2 * PAD_Y;

  const drawHeader = () => {
    const { page } = flow;
    page.drawRectangle({ x, y: flow.y - headerHeight, width: tableWidth, height: headerHeight, color: ACCENT });
    let left = x;
    columns.forEach((column, index) => {
      headerCells[index].forEach((line, lineIndex) => {
        const baseline = flow.y - PAD_Y - lineIndex * lineHeight(headerSize) - baselineOffset(headerSize);
        drawLine(page, flow.fonts, line, left + PAD_X, baseline, { size: headerSize, bold: true, color: WHITE }, column.align, column.width - 2 * PAD_X);
      });
      left += column.width;
    });
    flow.y -= headerHeight;
  };

  // The header goes with at least the first line of the first row.
  flow.ensure(headerHeight + rowLine + 2 * PAD_Y);
  drawHeader();

  rows.forEach((row) => {
    const cells = columns.map((column, index) => wrapText(row[index] ?? '', flow.fonts.regular, size, column.width - 2 * PAD_X));
    const total = Math.max(...cells.map((cell) => cell.length));
    let start = 0;
    while (start < total) {
      const remaining = total - start;
      const fits = Math.floor((flow.available() - 2 * PAD_Y) / rowLine);
      const needed = remaining <= KEEP_TOGETHER ? remaining : 2;
      if (fits < needed) {
        flow.addPage();
        drawHeader();
        continue;
      }
      const take = Math.min(fits, remaining);
      let left = x;
      columns.forEach((column, index) => {
        cells[index].slice(start, start + take).forEach((line, lineIndex) => {
          const baseline = flow.y - PAD_Y - lineIndex * rowLine - baselineOffset(size);
          drawLine(flow.page, flow.fonts, line, left + PAD_X, baseline, { size }, column.align, column.width - 2 * PAD_X);
        });
        left += column.width;
      });
      flow.y -= take * rowLine + 2 * PAD_Y;
      flow.page.drawLine({ start: { x, y: flow.y }, end: { x: x + tableWidth, y: flow.y }, thickness: 0.4, color: RULE });
      start += take;
    }
  });
}

/** Height the table would take if it all fit on one page (header included). */
export function tableHeight(flow: PageFlow, columns: Column[], rows: string[][], fontSize = 8, headerFontSize = 7.5): number {
  const header =
    Math.max(...columns.map((column) => wrapText(column.header, flow.fonts.bold, headerFontSize, column.width - 2 * PAD_X).length)) *
      lineHeight(headerFontSize) +
    2 * PAD_Y;
  const body = rows.reduce((sum, row) => {
    const lines = Math.max(...columns.map((column, index) => wrapText(row[index] ?? '', flow.fonts.regular, fontSize, column.width - 2 * PAD_X).length));
    return sum + lines * lineHeight(fontSize) + 2 * PAD_Y;
  }, 0);
  return header + body;
}
