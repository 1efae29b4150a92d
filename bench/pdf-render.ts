import { performance } from 'node:perf_hooks';
import { renderInvoice, renderInvoicePdf } from '../domain/pdf/render-invoice';
import type { UblDocument } from '../domain/ubl/types';
import { benchInvoice, linesForPages } from './support/pdf-invoice';
import { percentile } from './support/stats';

/**
 * `npx tsx bench/pdf-render.ts [iterations]`: time to render the graphic representation of a
 * 1-page and a 20-page invoice (domain/pdf only; no database, no network), p50/p99 over
 * `iterations` renders (default 200) after a warm-up.
 *
 * Importing this file has no side effects: bench/ingestion.ts uses measurePdfRendering.
 */

/** Calls `render` `warmups` times untimed, once more, then `iterations` times timed: the times ascending and the last output. */
async function timeRenders<T>(render: () => Promise<T>, warmups: number, iterations: number): Promise<{ times: number[]; last: T }> {
  for (let index = 0; index < warmups; index += 1) await render();
  let last = await render();
  const times: number[] = [];
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    last = await render();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { times, last };
}

export type PdfRenderResult = { name: string; lines: number; pages: number; bytes: number; iterations: number; p50Ms: number; p99Ms: number };

async function measure(name: string, document: UblDocument, iterations: number): Promise<PdfRenderResult> {
  const generatedAt = new Date();
  const { pageCount } = await renderInvoice(document, { generatedAt });
  const { times, last: pdf } = await timeRenders(() => renderInvoicePdf(document, { generatedAt }), Math.min(10, iterations), iterations);
  return { name, lines: document.lines.length, pages: pageCount, bytes: pdf.length, iterations, p50Ms: percentile(times, 0.5), p99Ms: percentile(times, 0.99) };
}

/** renderInvoicePdf timings for a 1-page and a 20-page invoice (bench/ingestion.ts's table rows). */
export async function measurePdfRendering(iterations: number): Promise<PdfRenderResult[]> {
  const twentyPageLines = await linesForPages(20);
  const results = [await measure('1 page', benchInvoice(3), iterations), await measure('20 pages', benchInvoice(twentyPageLines), iterations)];
  if (results[0].pages !== 1 || results[1].pages !== 20) throw new Error(`expected 1 and 20 pages, rendered ${results[0].pages} and ${results[1].pages}`);
  return results;
}

async function tableRow(name: string, document: UblDocument, iterations: number): Promise<string> {
  const generatedAt = new Date();
  const { times, last: result } = await timeRenders(() => renderInvoice(document, { generatedAt }), Math.min(20, iterations), iterations);
  const cells = [
    name,
    String(document.lines.length),
    String(result.pageCount),
    `${Math.round(result.pdf.length / 1024)} KiB`,
    percentile(times, 0.5).toFixed(1),
    percentile(times, 0.99).toFixed(1),
  ];
  return `| ${cells.join(' | ')} |`;
}

async function main(): Promise<void> {
  const iterations = Number(process.argv[2] ?? 200);
  if (!Number.isInteger(iterations) || iterations < 1) throw new Error('iterations must be a positive integer');
  const twentyPages = await linesForPages(20);
  console.log(`renderInvoicePdf, ${iterations} renders each, Node ${process.version}`);
  console.log('| invoice | lines | pages | size | p50 ms | p99 ms |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  console.log(await tableRow('1 page', benchInvoice(3), iterations));
  console.log(await tableRow('20 pages', benchInvoice(twentyPages), iterations));
}

if (require.main === module) {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
