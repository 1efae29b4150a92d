import { renderInvoice } from '../../domain/pdf/render-invoice';
import { NO_ACCOUNTING_EXTRAS } from '../../domain/ubl/accounting';
import type { UblDocument, UblLine } from '../../domain/ubl/types';

/** The renderer input shared by bench/pdf-render.ts and bench/ingestion.ts. */

const CUFE = '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694';

/** An invoice from DIAN's sample supplier to a sample customer with `lineCount` lines. */
export function benchInvoice(lineCount: number): UblDocument {
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
    dianDocumentType: 'electronic_invoice', codeScheme: 'CUFE', dianEnvironment: 'production', ...NO_ACCOUNTING_EXTRAS,
    issueDate: '2019-06-20', issueTime: '09:15:23-05:00', issuedAt: '2019-06-20T14:15:23.000Z', dueDate: '2019-06-30', currency: 'COP',
    supplier: { ...party, idNumber: '800197268', name: 'DIAN' },
    customer: { ...party, idNumber: '900108281', name: 'OPTICAS GMO COLOMBIA S A S' },
    subTotal: '12600.06', vat: '2424.01', taxExclusiveAmount: '12600.06', taxInclusiveAmount: '15024.07', total: '14024.07',
    taxes: [{ schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '12600.06', taxAmount: '2394.01' }],
    lines,
    referencedDocuments: [],
    notes: ['Documento de prueba para medir el tiempo de generación del PDF.'],
  };
}

/** The smallest number of lines that makes the invoice `pages` pages long. */
export async function linesForPages(pages: number): Promise<number> {
  let low = 1;
  let high = 2;
  while ((await renderInvoice(benchInvoice(high))).pageCount < pages) high *= 2;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if ((await renderInvoice(benchInvoice(middle))).pageCount >= pages) high = middle;
    else low = middle + 1;
  }
  return low;
}
