import { createHash } from 'node:crypto';
import { demoInvoiceXml, simplePdf, zipOf } from '../../admin/demo-documents';
import { COMPANY_NIT } from '../support/environment';

export { COMPANY_NIT };
const SUPPLIER_NIT = '800197268';

export type InputType = 'XML' | 'ZIP' | 'PDF';
export const INPUT_TYPES: readonly InputType[] = ['XML', 'ZIP', 'PDF'];

/** One file to upload: the multipart part's name, content and the `kind` field (bare PDFs only). */
export type BenchFile = { name: string; bytes: Buffer; contentType: string; kind?: string };

let counter = 0;
/** A CUFE never used before in this run: sha384 of a counter. */
function nextCufe(): string {
  counter += 1;
  return createHash('sha384').update(`bench-ingestion-${process.pid}-${counter}`).digest('hex');
}

/**
 * `count` distinct files of one type, built before the clock starts:
 * XML — the demo invoice (company as customer) with its own CUFE;
 * ZIP — that XML plus a one-page PDF of the same base name;
 * PDF — a one-page PDF uploaded with kind=payment_claim_account.
 */
export async function makeFiles(type: InputType, count: number, label: string): Promise<BenchFile[]> {
  const files: BenchFile[] = [];
  for (let index = 1; index <= count; index += 1) {
    const number = `${label}${type}${String(index).padStart(4, '0')}`;
    if (type === 'XML') {
      files.push({ name: `${number}.xml`, bytes: demoInvoiceXml(number, nextCufe(), SUPPLIER_NIT, COMPANY_NIT), contentType: 'application/xml' });
    } else if (type === 'ZIP') {
      const xml = demoInvoiceXml(number, nextCufe(), SUPPLIER_NIT, COMPANY_NIT);
      const pdf = await simplePdf(`Factura electrónica ${number}`, ['Proveedor Demo S.A.S.', 'Total: $ 1.190.000,00 COP']);
      files.push({ name: `${number}.zip`, bytes: zipOf([{ name: `${number}.xml`, data: xml }, { name: `${number}.pdf`, data: pdf }]), contentType: 'application/zip' });
    } else {
      const pdf = await simplePdf(`Cuenta de cobro ${number}`, ['Honorarios noviembre', 'Total: $ 850.000,00 COP']);
      files.push({ name: `cuenta-de-cobro-${number}.pdf`, bytes: pdf, contentType: 'application/pdf', kind: 'payment_claim_account' });
    }
  }
  return files;
}
