import { performance } from 'node:perf_hooks';
import { renderInvoice } from '../domain/pdf/render-invoice';
import type { UblDocument, UblLine } from '../domain/ubl/types';

/**
 * `npx tsx bench/pdf-render.ts [iterations]`: time to render the graphic representation of a
 * 1-page and a 20-page invoice (domain/pdf only; no database, no network), p50/p99 over
 * `iterations` renders (default 200) after a warm-up.
 */

const CUFE = '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694';

function invoice(lineCount: number): UblDocument {
  const lines: UblLine[] = Array.from({ length: lineCount }, (_, index) => ({
    id: String(index + 1),
    description:
      index % 5 === 4
        ? 'Montura de gafas en acetato con lentes progresivos, filtro de luz azul y tratamiento antirreflejo'
        : `Lente de contacto mensual referencia ${index + 1}`,
    quantity: '2.000000',
    unitCode: 'EA',
    unitPrice: '18900.00',
    lineExtensionAmount: '37800.00',
    taxes: [{ schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '37800.00', taxAmount: '7182.00' }],
  }));
  const party = { dv: null, idType: '31', email: 'facturacion@example.co', phone: '6011234567', address: 'Av. Jiménez #7 - 13', city: 'Bogotá, D.C.', countryCode: 'CO' };
  return {
    documentType: 'Invoice', number: 'SETP990000002', cufe: CUFE, cufeAlgorithm: 'CUFE-SHA384', typeCode: '01',
    issueDate: '2019-06-20', issueTime: '09:15:23-05:00', issuedAt: '2019-06-20T14:15:23.000Z', dueDate: '2019-06-30', currency: 'COP',
    supplier: { ...party, idNumber: '800197268', name: 'DIAN' },
    customer: { ...party, idNumber: '900108281', name: 'OPTICAS GMO COLOMBIA S A S' },
    subTotal: '12600.06', vat: '2424.01', taxExclusiveAmount: '12600.06', taxInclusiveAmount: '15024.07', total: '14024.07',
    taxes: [{ schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '12600.06', taxAmount: '2394.01' }],
    lines,
    referencedDocument: null,
    notes: ['Documento de prueba para medir el tiempo de generación del PDF.'],
  };
}

/** The smallest number of lines that makes the invoice `pages` pages long. */
async function linesForPages(pages: number): Promise<number> {
  let low = 1;
  let high = 2;
  while ((await renderInvoice(invoice(high))).pageCount < pages) high *= 2;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((await renderInvoice(invoice(middle))).pageCount >= pages) high = middle;
    else low = middle + 1;
  }
  return low;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)];
}

async function measure(name: string, document: UblDocument, iterations: number): Promise<string> {
  const generatedAt = new Date();
  for (let index = 0; index < Math.min(20, iterations); index += 1) await renderInvoice(document, { generatedAt });
  const times: number[] = [];
  let result = await renderInvoice(document, { generatedAt });
  for (let index = 0; index < iterations; index += 1) {
    const started = performance.now();
    result = await renderInvoice(document, { generatedAt });
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
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
  console.log(await measure('1 page', invoice(3), iterations));
  console.log(await measure('20 pages', invoice(twentyPages), iterations));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
