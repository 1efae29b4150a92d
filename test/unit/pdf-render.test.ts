import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import QRCode from 'qrcode';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import { formatPartyId } from '../../domain/pdf/format';
import { QR_PLACEMENT } from '../../domain/pdf/header';
import { PAGE_HEIGHT, embedFonts, printableText, wrapText } from '../../domain/pdf/layout';
import { formatAmount, formatMoney, formatPercent, formatQuantity } from '../../domain/pdf/money';
import { QR_QUIET_ZONE, dianQrText, qrSymbol } from '../../domain/pdf/qr';
import { renderInvoice, renderInvoicePdf } from '../../domain/pdf/render-invoice';
import { WINANSI_CODE_POINTS, toWinAnsi } from '../../domain/pdf/text-safety';
import { NO_ACCOUNTING_EXTRAS } from '../../domain/ubl/accounting';
import { parseUbl } from '../../domain/ubl/parse';
import type { UblDocument, UblLine } from '../../domain/ubl/types';
import { FIXTURES, OWN_FIXTURES } from '../support/ingestion';
import { collapse, pdfInfo, pdfPagesText, pdfWords, rasterize, requirePoppler, squeeze, type PdfPageBox } from '../support/pdf-text';

// invoice-signed-setp.xml (see /work/shared/fixtures/dian/expected.json); the lines are invented.
const CUFE = '941cf36af62dbbc06f105d2a80e9bfe683a90e84960eae4d351cc3afbe8f848c26c39bac4fbc80fa254824c6369ea694';
const CUDE = 'da3af05f963db5cff231d1171a810f5f55eb08615f22dc239fff55fa927be5cf6caade8bfa4f1f70c067dbb9ed30c009';
const GENERATED_AT = new Date('2024-05-02T15:30:00Z');

function line(id: number, description: string, overrides: Partial<UblLine> = {}): UblLine {
  return {
    id: String(id),
    description,
    quantity: '1.000000',
    unitCode: 'EA',
    unitPrice: '100.00',
    lineExtensionAmount: '100.00',
    taxes: [{ schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '100.00', taxAmount: '19.00' }],
    ...overrides,
  };
}

function setpInvoice(overrides: Partial<UblDocument> = {}): UblDocument {
  return {
    documentType: 'Invoice',
    number: 'SETP990000002',
    cufe: CUFE,
    cufeAlgorithm: 'CUFE-SHA384',
    typeCode: '01',
    dianDocumentType: 'electronic_invoice',
    codeScheme: 'CUFE',
    dianEnvironment: 'production',
    ...NO_ACCOUNTING_EXTRAS,
    issueDate: '2019-06-20',
    issueTime: '09:15:23-05:00',
    issuedAt: '2019-06-20T14:15:23.000Z',
    dueDate: '2019-06-30',
    currency: 'COP',
    supplier: {
      idNumber: '800197268', dv: null, idType: '31', name: 'DIAN', email: 'eric.valencia@ket.co', phone: '6111111',
      address: 'Av. Jiménez #7 - 13', city: 'Bogotá, D.c.', countryCode: 'CO',
    },
    customer: {
      idNumber: '900108281', dv: null, idType: null, name: 'OPTICAS GMO COLOMBIA S A S', email: 'dcruz@empresa.org',
      phone: '31031031089', address: 'CR 9 A N0 99 - 07 OF 802', city: 'Bogotá, D.c.', countryCode: 'CO',
    },
    subTotal: '12600.06',
    vat: '2424.01',
    taxExclusiveAmount: '12787.56',
    taxInclusiveAmount: '15024.07',
    total: '14024.07',
    taxes: [
      { schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '12600.06', taxAmount: '2394.01' },
      { schemeId: '01', schemeName: 'IVA', percent: '16.00', taxableAmount: '187.50', taxAmount: '30.00' },
      { schemeId: '04', schemeName: null, percent: '0.00', taxableAmount: '0.00', taxAmount: '0.00' },
    ],
    lines: [
      line(1, 'AV OASYS -2.25 (8.4) LENTE DE CONTACTO', { unitPrice: '18900.00', lineExtensionAmount: '12600.06' }),
      line(2, 'Estuche para lentes (obsequio, muestra sin valor comercial)', { unitCode: 'NIU', lineExtensionAmount: '0.00' }),
    ],
    referencedDocuments: [],
    notes: ['Factura de prueba del set de habilitación.'],
    ...overrides,
  };
}

const code = (index: number) => `L-${String(index).padStart(4, '0')}`;

function longInvoice(count: number): UblDocument {
  const lines = Array.from({ length: count }, (_, index) => {
    const n = index + 1;
    const description =
      n % 10 === 0
        ? `${code(n)} Montura de gafas en acetato con lentes progresivos, filtro de luz azul, tratamiento antirreflejo y estuche rígido de viaje`
        : `${code(n)} Lente de contacto mensual`;
    return line(n, description, { quantity: String(n), unitPrice: '1234.5', lineExtensionAmount: `${1234.5 * n}` });
  });
  return setpInvoice({ lines });
}

function occurrences(haystack: string, needle: string): number {
  return haystack.split(needle).length - 1;
}

/**
 * Every word inside the page margins, the content above the footer band (36 pt margin + 22 pt
 * footer), and no two words drawn over each other.
 */
function assertCleanLayout(t: { true: (value: boolean, message?: string) => void }, pages: PdfPageBox[]): void {
  for (const page of pages) {
    const footerRule = page.height - 48;
    const contentBottom = page.height - 58;
    for (const word of page.words) {
      const where = `page ${page.page}: "${word.text}" at x ${word.xMin}-${word.xMax}, y ${word.yMin}-${word.yMax}`;
      const inside = word.xMin >= 34 && word.xMax <= page.width - 34 && word.yMin >= 34 && word.yMax <= page.height - 34;
      t.true(inside, `${where} is outside the margins`);
      t.true(word.yMin >= footerRule || word.yMax <= contentBottom + 0.5, `${where} runs into the footer`);
    }
    for (let i = 0; i < page.words.length; i += 1) {
      for (let j = i + 1; j < page.words.length; j += 1) {
        const a = page.words[i];
        const b = page.words[j];
        const overlapX = Math.min(a.xMax, b.xMax) - Math.max(a.xMin, b.xMin);
        const overlapY = Math.min(a.yMax, b.yMax) - Math.max(a.yMin, b.yMin);
        if (overlapX > 0.5 && overlapY > 0.5) t.true(false, `page ${page.page}: "${a.text}" overlaps "${b.text}"`);
      }
    }
  }
}

test('pdftotext from poppler-utils is available (required, not optional)', async (t) => {
  await t.notThrowsAsync(requirePoppler());
});

test('a 1-page invoice: number, full CUFE, NITs with check digit, dates and totals as displayed', async (t) => {
  const pdf = await renderInvoicePdf(setpInvoice(), { generatedAt: GENERATED_AT });
  const info = await pdfInfo(pdf);
  t.is(info.Pages, '1');
  t.regex(info['Page size'], /^612 x 792 pts/);
  const [page] = await pdfPagesText(pdf);
  const text = collapse(page);
  t.true(text.includes('Factura electrónica de venta'));
  t.true(text.includes('No. SETP990000002'));
  t.true(squeeze(page).includes(`CUFE:${CUFE}`), 'the CUFE is printed in full');
  t.true(text.includes('NIT 800197268-4'), 'supplier DV computed for idType 31');
  t.true(text.includes('NIT 900108281-3'), 'customer DV computed for an unknown idType');
  t.true(text.includes('DIAN') && text.includes('OPTICAS GMO COLOMBIA S A S'));
  t.true(text.includes('Fecha de emisión: 20/06/2019') && text.includes('09:15:23 (hora de Colombia)'));
  t.true(text.includes('Fecha de vencimiento: 30/06/2019'));
  t.true(text.includes('Av. Jiménez #7 - 13') && text.includes('Bogotá, D.c.'));
  t.true(text.includes('$ 12.600,06 COP'), 'subtotal');
  t.true(text.includes('$ 2.424,01 COP'), 'IVA');
  t.true(text.includes('$ 14.024,07 COP'), 'total to pay');
  t.true(text.includes('18.900,00') && text.includes('2.394,01') && text.includes('19%') && text.includes('INC (04)'));
  t.true(text.includes('Factura de prueba del set de habilitación.'));
  t.true(text.includes('Página 1 de 1'));
  t.true(text.includes('Generada el 02/05/2024 10:30:00'));
  assertCleanLayout(t, await pdfWords(pdf));
});

test("a document of DIAN's habilitación environment says so, and its QR and lookup point at habilitación's catalogue, which holds it", async (t) => {
  t.is(dianQrText(CUFE, 'testing'), `https://catalogo-vpfe-hab.dian.gov.co/document/searchqr?documentkey=${CUFE}`);
  const rendered = await renderInvoice(setpInvoice({ dianEnvironment: 'testing' }), { generatedAt: GENERATED_AT });
  const [page] = await pdfPagesText(rendered.pdf);
  const text = collapse(page);
  t.true(text.includes('Documento del ambiente de habilitación (pruebas) de la DIAN.'), text);
  t.true(text.includes('catalogo-vpfe-hab.dian.gov.co'));
  t.deepEqual(rendered.qr, qrSymbol(dianQrText(CUFE, 'testing')), 'the QR encodes the habilitación lookup');
  const [production] = await pdfPagesText(await renderInvoicePdf(setpInvoice(), { generatedAt: GENERATED_AT }));
  t.false(collapse(production).includes('ambiente de habilitación'));
  t.false(collapse(production).includes('catalogo-vpfe-hab'));
});

test('withholdings are listed after the taxes (they were nowhere on the page); the total to pay is unchanged', async (t) => {
  const withheld = setpInvoice({
    withholdings: [
      { type: 'rete_fuente', schemeId: '06', schemeName: 'ReteRenta', percent: '2.50', taxableAmount: '12600.06', taxAmount: '315.00' },
      { type: 'rete_iva', schemeId: '05', schemeName: null, percent: '15.00', taxableAmount: '2424.01', taxAmount: '363.60' },
    ],
  });
  const text = collapse((await pdfPagesText(await renderInvoicePdf(withheld, { generatedAt: GENERATED_AT })))[0]);
  t.true(text.includes('IMPUESTOS, RETENCIONES Y TOTALES (COP)'), text);
  t.true(text.includes('ReteRenta (06) 2,5% 12.600,06 315,00'), text);
  t.true(text.includes('ReteIVA (05) 15% 2.424,01 363,60'), text);
  t.regex(text, /Total a pagar \$ 14\.024,07/);
});

test('a documento soporte is titled as one, with its CUDS; the footer names it with its article (it was a "Factura electrónica de venta" with a CUFE)', async (t) => {
  const CUDS = 'ab'.repeat(48);
  const support = setpInvoice({ number: 'DSE9001', typeCode: '05', dianDocumentType: 'support_document', codeScheme: 'CUDS', cufe: CUDS, cufeAlgorithm: 'CUDS-SHA384' });
  const [page] = await pdfPagesText(await renderInvoicePdf(support, { generatedAt: GENERATED_AT }));
  const text = collapse(page);
  t.true(text.includes('Documento soporte (no obligados a facturar)'), text);
  t.false(text.includes('Factura electrónica de venta'));
  t.true(squeeze(page).includes(`CUDS:${CUDS}`));
  t.false(squeeze(page).includes('CUFE:'));
  t.true(text.includes('Representación gráfica del documento soporte (no obligados a facturar) No. DSE9001'), text);
  const pos = setpInvoice({ number: 'POS1', typeCode: '20', dianDocumentType: 'pos_equivalent', codeScheme: 'CUDE', cufeAlgorithm: 'CUDE-SHA384' });
  const [posPage] = await pdfPagesText(await renderInvoicePdf(pos, { generatedAt: GENERATED_AT }));
  t.true(collapse(posPage).includes('Documento equivalente electrónico POS'));
  t.true(squeeze(posPage).includes(`CUDE:${CUFE}`));
});

test('a 200-line invoice flows over several pages, each numbered and with the table header', async (t) => {
  const rendered = await renderInvoice(longInvoice(200), { generatedAt: GENERATED_AT });
  const pages = await pdfPagesText(rendered.pdf);
  const count = pages.length;
  t.true(count >= 4, `expected several pages, got ${count}`);
  t.is((await pdfInfo(rendered.pdf)).Pages, String(count));
  t.is(rendered.pageCount, count);
  pages.forEach((page, index) => {
    const text = collapse(page);
    t.is(occurrences(text, `Página ${index + 1} de ${count}`), 1, `page ${index + 1} is numbered`);
    if (/L-\d{4}/.test(text)) t.true(text.includes('Descripción') && text.includes('Valor unitario (COP)'), `page ${index + 1} repeats the header`);
  });
  const all = pages.map(collapse).join(' ');
  let previous = -1;
  for (let n = 1; n <= 200; n += 1) {
    t.is(all.match(new RegExp(`\\b${code(n)}\\b`, 'g'))?.length ?? 0, 1, `${code(n)} appears once`);
    if (n % 10 !== 0) t.is(occurrences(all, `${code(n)} Lente de contacto mensual`), 1);
    const position = all.indexOf(code(n));
    t.true(position > previous, `${code(n)} comes after ${code(n - 1)}`);
    previous = position;
  }
  t.true(all.includes('246.900,00'), 'last line total: 200 × 1.234,50');
  t.true(collapse(pages[count - 1]).includes('$ 14.024,07 COP'), 'totals on the last page');
  assertCleanLayout(t, await pdfWords(rendered.pdf));
});

test('names with emoji, CJK, control characters and unbroken strings render and wrap in their column', async (t) => {
  const unbroken = 'X'.repeat(400);
  const document = setpInvoice({
    supplier: { ...setpInvoice().supplier, name: 'Café 😀 Ñandú 株式会社 \u0000\u0007 S.A.S 👨‍👩‍👧', address: 'Calle\t10\n# 5-20 \u202eRTL\u202c' },
    customer: { ...setpInvoice().customer, name: 'Łódź Zoë → Ωμέγα', email: `${'a'.repeat(120)}@example.com` },
    lines: [line(1, `${unbroken} fin 🧾 \uD800 naïve`), line(2, 'Línea normal ¿sí? ¡ya!')],
    notes: ['Nota con \u0001control\u001f y 中文 y emoji 🎉'],
  });
  const pdf = await renderInvoicePdf(document, { generatedAt: GENERATED_AT });
  const text = collapse((await pdfPagesText(pdf)).join(' '));
  t.true(text.includes('Café ? Ñandú ???? S.A.S'), text.slice(0, 200));
  t.true(text.includes('Lódz Zoë -> ?????'));
  t.true(text.includes('Línea normal ¿sí? ¡ya!'));
  t.true(text.includes('Nota con control y ?? y emoji ?'));
  t.true(squeeze(text).includes(unbroken), 'the unbroken string is all there');
  const pages = await pdfWords(pdf);
  const descriptionRight = 36 + 28 + 242;
  for (const word of pages.flatMap((page) => page.words).filter((word) => word.text.startsWith('XXX'))) {
    t.true(word.xMax <= descriptionRight, `"${word.text.slice(0, 10)}…" ends at ${word.xMax}, past the description column (${descriptionRight})`);
  }
  assertCleanLayout(t, pages);
});

test('a credit note has its title, CUDE and the invoice it amends; a debit note its title', async (t) => {
  const credit = setpInvoice({
    documentType: 'CreditNote',
    number: 'NC3',
    cufe: CUDE,
    cufeAlgorithm: 'CUDE-SHA384',
    typeCode: '91',
    dianDocumentType: 'credit_note',
    codeScheme: 'CUDE',
    currency: 'USD',
    subTotal: '12600.06',
    vat: '2394.01',
    total: '14994.07',
    referencedDocuments: [{ number: 'SETP990000002', cufe: CUFE, issueDate: '2019-06-20' }],
  });
  const pdf = await renderInvoicePdf(credit, { generatedAt: GENERATED_AT });
  const [page] = await pdfPagesText(pdf);
  const text = collapse(page);
  t.true(text.includes('Nota crédito electrónica'));
  t.true(text.includes('No. NC3'));
  t.true(squeeze(page).includes(`CUDE:${CUDE}`));
  t.true(text.includes('DOCUMENTO REFERENCIADO') && text.includes('Factura No. SETP990000002'));
  t.true(squeeze(page).includes(`CUFE:${CUFE}`), 'the referenced invoice CUFE');
  t.true(text.includes('US$ 14.994,07 USD'));

  const several = [1, 2, 3, 4, 5].map((n) => ({ number: `SETP99000000${n}`, cufe: CUFE, issueDate: '2019-06-20' }));
  const correctingFive = collapse((await pdfPagesText(await renderInvoicePdf({ ...credit, referencedDocuments: several }, { generatedAt: GENERATED_AT })))[0]);
  t.true(correctingFive.includes('DOCUMENTOS REFERENCIADOS'));
  t.true(['SETP990000001', 'SETP990000002', 'SETP990000003'].every((number) => correctingFive.includes(`Factura No. ${number}`)), 'every reference drawn, up to three');
  t.false(correctingFive.includes('Factura No. SETP990000004'));
  t.true(correctingFive.includes('y 2 documentos más'), 'the rest counted, so the header keeps its height');

  const debit = await renderInvoicePdf({ ...credit, documentType: 'DebitNote', dianDocumentType: 'debit_note', typeCode: '92', number: 'ND1' }, { generatedAt: GENERATED_AT });
  t.true(collapse((await pdfPagesText(debit))[0]).includes('Nota débito electrónica'));
});

test('the QR drawn is the QRCode.create matrix (level M) of the DIAN lookup URL', async (t) => {
  const url = dianQrText(CUFE);
  t.is(url, `https://catalogo-vpfe.dian.gov.co/document/searchqr?documentkey=${CUFE}`);
  const reference = QRCode.create(url, { errorCorrectionLevel: 'M' });
  const symbol = qrSymbol(url);
  t.is(symbol.size, reference.modules.size);
  const drawn = new Uint8Array(symbol.size * symbol.size);
  for (const run of symbol.runs) drawn.fill(1, run.row * symbol.size + run.col, run.row * symbol.size + run.col + run.length);
  t.deepEqual(drawn, Uint8Array.from(reference.modules.data, (bit) => (bit ? 1 : 0)));
  t.is(symbol.darkModules, reference.modules.data.reduce((sum, bit) => sum + (bit ? 1 : 0), 0));

  // Read the symbol back from the rendered page with pdftoppm: each module centre's colour.
  const rendered = await renderInvoice(setpInvoice(), { generatedAt: GENERATED_AT });
  t.is(rendered.qr.size, reference.modules.size);
  const scale = 4;
  const image = await rasterize(
    rendered.pdf,
    1,
    { x: QR_PLACEMENT.x, y: PAGE_HEIGHT - QR_PLACEMENT.y - QR_PLACEMENT.size, width: QR_PLACEMENT.size, height: QR_PLACEMENT.size },
    scale,
  );
  const modulePixels = image.width / (symbol.size + 2 * QR_QUIET_ZONE);
  let mismatches = 0;
  for (let row = -QR_QUIET_ZONE; row < symbol.size + QR_QUIET_ZONE; row += 1) {
    for (let col = -QR_QUIET_ZONE; col < symbol.size + QR_QUIET_ZONE; col += 1) {
      const x = Math.floor((col + QR_QUIET_ZONE + 0.5) * modulePixels);
      const y = Math.floor((row + QR_QUIET_ZONE + 0.5) * modulePixels);
      const dark = image.pixels[y * image.width + x] < 128;
      const inside = row >= 0 && col >= 0 && row < symbol.size && col < symbol.size;
      if (dark !== (inside && reference.modules.get(row, col) === 1)) mismatches += 1;
    }
  }
  t.is(mismatches, 0);
});

test('rendering is deterministic for a given generatedAt', async (t) => {
  const first = await renderInvoicePdf(setpInvoice(), { generatedAt: GENERATED_AT });
  const second = await renderInvoicePdf(setpInvoice(), { generatedAt: GENERATED_AT });
  t.deepEqual(Buffer.from(first), Buffer.from(second));
  t.is(Buffer.from(first.subarray(0, 5)).toString('latin1'), '%PDF-');
});

test('the totals show the discounts, charges, advance payments and rounding between the total with taxes and the total to pay', async (t) => {
  // invoice-signed-setp.xml itself: TaxInclusiveAmount 15024.07 − PrepaidAmount 1000.00 = PayableAmount 14024.07.
  const fixture = parseUbl(readFileSync(path.join(FIXTURES, 'invoice-signed-setp.xml'))).document;
  t.is(fixture.prepaidAmount, '1000.00');
  t.is(fixture.payableRoundingAmount, null);
  const [fixturePage] = await pdfPagesText(await renderInvoicePdf(fixture, { generatedAt: GENERATED_AT }));
  const fixtureText = collapse(fixturePage);
  t.regex(fixtureText, /Total con impuestos \$ 15\.024,07 COP.*\(-\) Anticipos \$ 1\.000,00 COP.*Total a pagar \$ 14\.024,07 COP/, fixtureText);
  t.false(fixtureText.includes('Descuentos') || fixtureText.includes('Cargos') || fixtureText.includes('Redondeo'), 'absent amounts get no row');

  // 15024.07 − 50.00 + 20.00 − 1000.00 − 0.07 = 13994.00
  const adjusted = setpInvoice({ allowanceTotalAmount: '50.00', chargeTotalAmount: '20.00', prepaidAmount: '1000.00', payableRoundingAmount: '-0.07', total: '13994.00' });
  const [page] = await pdfPagesText(await renderInvoicePdf(adjusted, { generatedAt: GENERATED_AT }));
  const text = collapse(page);
  // The labels in the formula's order; each value is checked on its own (pdftotext may read a label and
  // its value apart when the next row is set in a larger font).
  t.regex(text, /Total con impuestos .*\(-\) Descuentos .*\(\+\) Cargos .*\(-\) Anticipos .*Redondeo .*Total a pagar /, text);
  for (const value of ['$ 50,00 COP', '$ 20,00 COP', '$ 1.000,00 COP', '-$ 0,07 COP', '$ 13.994,00 COP']) t.true(text.includes(value), value);
  const zeros = setpInvoice({ allowanceTotalAmount: '0.00', chargeTotalAmount: '0', prepaidAmount: '0.00', payableRoundingAmount: '0.00' });
  const zerosText = collapse((await pdfPagesText(await renderInvoicePdf(zeros, { generatedAt: GENERATED_AT })))[0]);
  t.false(/Descuentos|Cargos|Anticipos|Redondeo/.test(zerosText), 'zero amounts get no row');
  assertCleanLayout(t, await pdfWords(await renderInvoicePdf(adjusted, { generatedAt: GENERATED_AT })));

  // An advance reported but not deducted (PayableAmount = TaxInclusiveAmount, as Odoo's DIAN module
  // writes it): the rows must still add up to the total to pay, so the advance is told after it.
  const undeducted = setpInvoice({ prepaidAmount: '1000.00', total: '15024.07' });
  const undeductedText = collapse((await pdfPagesText(await renderInvoicePdf(undeducted, { generatedAt: GENERATED_AT })))[0]);
  t.false(undeductedText.includes('(-) Anticipos'), undeductedText);
  t.regex(undeductedText, /Total con impuestos .*Total a pagar .*Anticipos \(no descontados\)/, undeductedText);
  t.true(undeductedText.includes('$ 15.024,07 COP'));
});

test('a document in another currency shows its exchange rate as written and the total to pay in pesos', async (t) => {
  // withholdings-usd.xml: USD, PaymentExchangeRate USD→COP 4012.37 of 2026-02-10; 1060.00 × 4012.37 = 4253112.20 (the API's cop_equivalents.total).
  const usd = parseUbl(readFileSync(path.join(OWN_FIXTURES, 'withholdings-usd.xml'))).document;
  const pdf = await renderInvoicePdf(usd, { generatedAt: GENERATED_AT });
  const text = collapse((await pdfPagesText(pdf))[0]);
  t.true(text.includes('Tasa de cambio USD a COP: 4.012,37 (10/02/2026)'), text);
  t.true(text.includes('Equivalente en pesos $ 4.253.112,20 COP'), text);
  t.true(text.indexOf('Total a pagar') < text.indexOf('Equivalente en pesos'), 'after the total to pay');
  assertCleanLayout(t, await pdfWords(pdf));
  // The toolbox's COP invoice quoting its USD rate: the rate is shown, no conversion of a COP total.
  const cop = parseUbl(readFileSync(path.join(FIXTURES, 'toolbox-other-currency.xml'))).document;
  const copText = collapse((await pdfPagesText(await renderInvoicePdf(cop, { generatedAt: GENERATED_AT })))[0]);
  t.true(copText.includes('Tasa de cambio COP a USD: 5.000 (03/05/2023)'), copText);
  t.false(copText.includes('Equivalente en pesos'));
  const plain = collapse((await pdfPagesText(await renderInvoicePdf(setpInvoice(), { generatedAt: GENERATED_AT })))[0]);
  t.false(/Tasa de cambio|Equivalente en pesos/.test(plain), 'a COP document without a rate has neither');
});

test('money is formatted from the decimal string, Colombian style, rounding half up', (t) => {
  t.is(formatMoney('12600.06', 'COP'), '$ 12.600,06 COP');
  t.is(formatMoney('14024.07', 'COP'), '$ 14.024,07 COP');
  t.is(formatMoney('0', 'COP'), '$ 0,00 COP');
  t.is(formatMoney('1234.5', 'USD'), 'US$ 1.234,50 USD');
  t.is(formatMoney('-1234567.891', 'COP'), '-$ 1.234.567,89 COP');
  t.is(formatMoney('100', 'MXN'), '100,00 MXN');
  t.is(formatAmount('0.005'), '0,01');
  t.is(formatAmount('0.004999'), '0,00');
  t.is(formatAmount('999999.995'), '1.000.000,00');
  t.is(formatAmount('-0.001'), '0,00');
  t.is(formatAmount('-0.005'), '-0,01');
  t.is(formatAmount('00012.3'), '12,30');
  // Beyond float precision: every digit survives.
  t.is(formatAmount('12345678901234567890.125'), '12.345.678.901.234.567.890,13');
  t.is(formatAmount('not a number'), 'not a number');
  t.is(formatQuantity('1.000000'), '1');
  t.is(formatQuantity('2500.50'), '2.500,5');
  t.is(formatPercent('19.00'), '19%');
  t.is(formatPercent('0.000'), '0%');
  t.is(formatPercent(null), '-');
});

test('NIT check digit: computed for NIT and unknown types when absent, kept when present', (t) => {
  const party = setpInvoice().supplier;
  t.is(formatPartyId(party), 'NIT 800197268-4');
  t.is(formatPartyId({ ...party, idType: null }), 'NIT 800197268-4');
  t.is(formatPartyId({ ...party, dv: '4' }), 'NIT 800197268-4');
  t.is(formatPartyId({ ...party, idType: '13', idNumber: '1020304050' }), 'C.C. 1020304050');
  t.is(formatPartyId({ ...party, idNumber: 'ABC-1' }), 'NIT ABC-1');
});

test('toWinAnsi output is always encodable by Helvetica, and Spanish text is kept', async (t) => {
  const pdf = await PDFDocument.create();
  const helvetica = await pdf.embedFont(StandardFonts.Helvetica);
  t.deepEqual([...WINANSI_CODE_POINTS].sort((a, b) => a - b), helvetica.getCharacterSet().sort((a, b) => a - b));
  const spanish = 'Añoranza ÁÉÍÓÚÜÑ áéíóúüñ ¿Qué? ¡Sí! 3° 1ª 2º €5 «cita» “comillas” — fin';
  t.is(toWinAnsi(spanish), spanish);
  t.is(toWinAnsi('n\u0303o'), 'ño', 'combining tilde composed');
  t.is(toWinAnsi('ā ő ł ﬁ Ａ'), 'a o l fi A');
  let everything = '';
  for (let codePoint = 0; codePoint <= 0x2ffff; codePoint += 1) {
    if (codePoint < 0xd800 || codePoint > 0xdfff) everything += String.fromCodePoint(codePoint);
  }
  everything += '\uD800\uDFFF\uDC00'; // lone surrogates
  const safe = toWinAnsi(everything);
  t.true([...safe].every((character) => WINANSI_CODE_POINTS.has(character.codePointAt(0)!)));
  t.notThrows(() => helvetica.encodeText(safe));
});

test('wrapText keeps every line within its width, cutting unbroken strings', async (t) => {
  const fonts = await embedFonts(await PDFDocument.create());
  const text = `Corto ${'0123456789abcdef'.repeat(20)} y una palabra más 😀 ${'W'.repeat(80)}`;
  const lines = wrapText(text, fonts.regular, 8, 120);
  t.true(lines.length > 5);
  for (const wrapped of lines) t.true(fonts.regular.widthOfTextAtSize(wrapped, 8) <= 120, wrapped);
  t.is(lines.join('').replace(/\s/g, ''), toWinAnsi(text).replace(/\s/g, ''));
});

test('a line longer than a page is split across pages; a document without lines, taxes or notes renders', async (t) => {
  const words = Array.from({ length: 1500 }, (_, index) => `w${index}`);
  const pdf = await renderInvoicePdf(setpInvoice({ lines: [line(1, words.join(' ')), line(2, 'Después de la línea larga')] }), {
    generatedAt: GENERATED_AT,
  });
  const pages = await pdfPagesText(pdf);
  t.true(pages.length >= 2);
  const all = collapse(pages.join(' '));
  t.true(words.every((word) => new RegExp(`\\b${word}\\b`).test(all)), 'every word of the long description is printed');
  t.true(all.includes('Después de la línea larga'));
  assertCleanLayout(t, await pdfWords(pdf));

  const empty = await renderInvoicePdf(setpInvoice({ lines: [], taxes: [], notes: [], vat: null, dueDate: null, referencedDocuments: [] }));
  const text = collapse((await pdfPagesText(empty)).join(' '));
  t.true(text.includes('El documento no tiene líneas.') && text.includes('$ 14.024,07 COP') && text.includes('Página 1 de 1'));
});

// The XML bounds no free text: on npm start an invoice whose description held 3 million line
// breaks never got a PDF (8–20 s of the API's only CPU-pool thread per GET …/pdf, then 404), and
// three such requests at once ended the API process (see cpu-pool.test.ts).
test('a description or note of millions of line breaks or characters prints its beginning and says how much is left out', async (t) => {
  const started = Date.now();
  const newlines = 'a\n'.repeat(3_000_000);
  const unbroken = 'X'.repeat(2_000_000);
  const pdf = await renderInvoicePdf(setpInvoice({ lines: [line(1, `Inicio ${newlines}`), line(2, unbroken), line(3, 'Después de las líneas enormes')], notes: [`Nota ${'b\r'.repeat(1_000_000)}`] }), { generatedAt: GENERATED_AT });
  t.true(Date.now() - started < 15_000, `rendered in ${Date.now() - started} ms`);
  const pages = await pdfPagesText(pdf);
  t.true(pages.length < 40, `${pages.length} pages`);
  const all = collapse(pages.join(' '));
  t.true(all.includes('Inicio'));
  // 'Inicio ' and 200 lines are printed: the text is cut at its 201st line break, 408 characters in.
  t.true(all.includes(`[… ${'Inicio '.length + newlines.length - 408} caracteres más, en el XML original]`), all.slice(0, 3000));
  t.regex(all, /\[… 1990000 caracteres más, en el XML original\]/);
  t.regex(all, /Nota b/);
  t.regex(all, /\[… 1999\d{3} caracteres más, en el XML original\]/);
  t.true(all.includes('Después de las líneas enormes'));

  // Ordinary texts are printed whole.
  t.is(printableText('Lente de contacto\nGraduación -2.25'), 'Lente de contacto\nGraduación -2.25');
  t.is(printableText('x'.repeat(10_000)), 'x'.repeat(10_000));
  t.is(printableText(`${'l\n'.repeat(200)}z`), `${'l\n'.repeat(200)}z`);
  t.is(printableText(`${'l\n'.repeat(201)}z`), `${'l\n'.repeat(200)}l\n[… 2 caracteres más, en el XML original]`);
});

test("a line's own discount is shown under its description, so quantity × unit value adds up to its total", async (t) => {
  // invoice-signed-setp.xml, line 1: 1 × 18.900,00 less 33,33 % (6.299,94) = 12.600,06.
  const invoice = parseUbl(readFileSync(path.join(FIXTURES, 'invoice-signed-setp.xml'))).document;
  t.deepEqual(invoice.lines[0]!.allowanceCharges?.map((entry) => [entry.chargeIndicator, entry.percent, entry.amount, entry.reason]), [
    [false, '33.33', '6299.94', 'Descuento por cliente frecuente'],
  ]);
  const pdf = await renderInvoicePdf(invoice, { generatedAt: GENERATED_AT });
  const text = collapse((await pdfPagesText(pdf))[0]);
  t.regex(text, /Descuento 33,33% \(Descuento por cliente frecuente\): -6\.299,94/, text);
  assertCleanLayout(t, await pdfWords(pdf));
  // A line stored before its discounts were read (no allowanceCharges) renders as before.
  const stored = { ...invoice, lines: invoice.lines.map(({ allowanceCharges: _, ...line }) => line) };
  t.false(collapse((await pdfPagesText(await renderInvoicePdf(stored, { generatedAt: GENERATED_AT })))[0]).includes('Descuento 33,33%'));
});

test('a tax per unit (INC bolsas) shows its amount per unit and its units, not a rate "-" on a base of 0,00', async (t) => {
  const original = readFileSync(path.join(FIXTURES, 'invoice-signed-setp.xml'), 'utf8');
  const bags =
    '<cac:TaxTotal><cbc:TaxAmount currencyID="COP">132.00</cbc:TaxAmount><cac:TaxSubtotal><cbc:TaxableAmount currencyID="COP">0.00</cbc:TaxableAmount>' +
    '<cbc:TaxAmount currencyID="COP">132.00</cbc:TaxAmount><cbc:BaseUnitMeasure unitCode="NIU">2</cbc:BaseUnitMeasure><cbc:PerUnitAmount currencyID="COP">66.00</cbc:PerUnitAmount>' +
    '<cac:TaxCategory><cac:TaxScheme><cbc:ID>22</cbc:ID><cbc:Name>INC Bolsas</cbc:Name></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>';
  const end = original.indexOf('</cac:TaxTotal>') + '</cac:TaxTotal>'.length;
  const invoice = parseUbl(`${original.slice(0, end)}${bags}${original.slice(end)}`).document;
  t.like(invoice.taxes.find((tax) => tax.schemeId === '22'), { percent: null, taxableAmount: '0.00', taxAmount: '132.00', perUnitAmount: '66.00', units: '2' });
  t.false('perUnitAmount' in invoice.taxes[0]!, 'a tax with a rate has no per-unit fields');
  const pdf = await renderInvoicePdf(invoice, { generatedAt: GENERATED_AT });
  const text = collapse((await pdfPagesText(pdf))[0]);
  // Each value on its own: pdftotext may read the table's columns and the totals beside them apart.
  t.true(text.includes('INC Bolsas (22) 66,00 c/u'), text);
  t.regex(text, / 2 ?u /, 'its units'); // pdftotext may join a right-aligned '2 u'
  t.true(text.includes('132,00'), text);
  assertCleanLayout(t, await pdfWords(pdf));
});

test("a free item (muestra gratis) says so and shows its reference value, on which its taxes are computed", async (t) => {
  // DIAN's toolbox "Muestras Gratis": one line of value 0,00 whose IVA (190.000,00) is on its commercial value 1.000.000.
  const invoice = parseUbl(readFileSync(path.join(FIXTURES, 'toolbox-free-samples.xml'))).document;
  t.like(invoice.lines[0], { freeOfCharge: true, lineExtensionAmount: '0.00', referencePrice: { amount: '1000000', typeCode: '01', type: 'Valor comercial' } });
  const pdf = await renderInvoicePdf(invoice, { generatedAt: GENERATED_AT });
  const text = collapse((await pdfPagesText(pdf))[0]);
  t.regex(text, /Prod Gratis con Impuestos Sin costo \(muestra gratis\)\. Valor comercial: 1\.000\.000,00/, text);
  assertCleanLayout(t, await pdfWords(pdf));
  // A line that is not free says nothing of the kind, even with a reference price.
  const setp = parseUbl(readFileSync(path.join(FIXTURES, 'invoice-signed-setp.xml'))).document;
  t.like(setp.lines[0], { freeOfCharge: false, referencePrice: null });
  t.regex(collapse((await pdfPagesText(await renderInvoicePdf(setp, { generatedAt: GENERATED_AT })))[0]), /Bolsa Sin costo \(muestra gratis\)\. Otro valor: 100,00/);
});
