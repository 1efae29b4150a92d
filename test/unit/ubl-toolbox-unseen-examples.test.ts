import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseUbl } from '../../domain/ubl/parse';
import { totalsInconsistencies } from '../../domain/ubl/totals-consistency';
import { nitCheckDigit } from '../../domain/nit';
import { OWN_FIXTURES } from '../support/ingestion';

// Examples of DIAN's own toolboxes (Caja de herramientas FE v1.9 "XMLs de ejemplo", Documento Soporte) the
// project had not read, unmodified (test/fixtures/dian/README.md). What the service stores is compared with
// what each document says.
const parse = (name: string) => parseUbl(readFileSync(path.join(OWN_FIXTURES, name))).document;

test('a restaurant invoice with a tip (propina): the tip is a document-level charge outside the IVA base, and the total includes it', (t) => {
  const invoice = parse('toolbox-tip.xml');
  t.like(invoice, {
    documentType: 'Invoice', number: 'SETP990000001', typeCode: '01', dianDocumentType: 'electronic_invoice', codeScheme: 'CUFE',
    cufe: '51aaec6aff2cd259d70d1834c15b14c7ac881feb1a6bf329f0327af89f6d58f4f9abf0302d1f8ed8c014be3945d7b9b4',
    dianEnvironment: 'testing', issueDate: '2023-11-20', issueTime: '14:08:45-05:00', dueDate: '2023-11-30', currency: 'COP',
    subTotal: '1000000.00', vat: '190000.00', taxInclusiveAmount: '1190000.00', chargeTotalAmount: '100000.00', allowanceTotalAmount: null, total: '1290000.00',
  });
  t.like(invoice.supplier, { idNumber: '900374637', dv: '0', idType: '31', personType: 'LEGAL', name: 'PRUEBAS PILOTO II-2021', city: 'Bogotá, D.c.' });
  t.like(invoice.customer, { idNumber: '900373991', dv: '9', idType: '31', name: 'Pruebas2' });
  t.is(nitCheckDigit('900374637'), '0');
  t.deepEqual(invoice.allowanceCharges, [{ chargeIndicator: true, reasonCode: '03', reason: 'Propina', percent: '10.00', amount: '100000.00', baseAmount: '100000.00' }]);
  t.deepEqual(invoice.taxes, [{ schemeId: '01', schemeName: 'IVA', percent: '19.00', taxableAmount: '1000000.00', taxAmount: '190000.00' }]);
  t.like(invoice.lines[0], { description: 'Cena', quantity: '10.000000', unitPrice: '100000.00', lineExtensionAmount: '1000000.00' });
  t.deepEqual(totalsInconsistencies(invoice), []);
});

test('a credit note without a referenced invoice (CustomizationID 22): no reference, a line discount, a per-unit price over BaseQuantity 3, the supplier\'s check digit as written', (t) => {
  const note = parse('toolbox-credit-note-without-reference.xml');
  t.like(note, {
    documentType: 'CreditNote', number: 'NC50101', typeCode: '91', dianDocumentType: 'credit_note', codeScheme: 'CUDE',
    cufe: '430cd0ed8c3f9541138baeb29d0da5177e5a9e69160f211ccab42e32de3babf2ea1d2d46fe43798c757b4edb34b56f6e',
    dianEnvironment: 'testing', issueDate: '2024-04-29', issuedAt: '2024-04-29T05:00:00.000Z', currency: 'COP',
    subTotal: '7425000.00', vat: '1410750.00', total: '8835750.00',
  });
  t.deepEqual(note.referencedDocuments, []);
  // 3 × 2,750,000.00 = 8,250,000.00 (the discount's BaseAmount), less 10 % = 7,425,000.00: PriceAmount is per unit
  // although BaseQuantity says 3, so the price is kept as written rather than divided by BaseQuantity.
  t.like(note.lines[0], { quantity: '3', unitCode: '94', unitPrice: '2750000.00', lineExtensionAmount: '7425000.00' });
  t.deepEqual(note.lines[0]!.allowanceCharges, [{ chargeIndicator: false, reasonCode: '0050', reason: null, percent: '10', amount: '825000', baseAmount: '8250000' }]);
  // DIAN's example writes schemeID 2 on NIT 860003456, whose check digit is 9: kept as written
  // (test/unit/ubl-party-check-digit.test.ts), a difference the merger's report names.
  t.like(note.supplier, { idNumber: '860003456', dv: '2', idType: '31' });
  t.is(nitCheckDigit('860003456'), '9');
  t.like(note.customer, { idNumber: '791098888', dv: '4', idType: '31' });
  t.deepEqual(totalsInconsistencies(note), []);
});

test('a support document in US dollars: exchange rate, two IVA rates, ReteIVA and ReteRenta, document discount and charge', (t) => {
  const document = parse('toolbox-support-document-usd.xml');
  t.like(document, {
    documentType: 'Invoice', number: 'DS236000009', typeCode: '05', dianDocumentType: 'support_document', codeScheme: 'CUDS',
    cufe: '4a18cc3f8e9ca8e4ae15e3b4c04bad4b32357586b1ba4fb92f77933968967a2c9372f5973b6c33adfa3ccd5269d06a31',
    dianEnvironment: 'testing', issueDate: '2022-04-05', dueDate: '2021-08-14', currency: 'USD',
    subTotal: '3899.00', vat: '432.00', taxInclusiveAmount: '4331.00', allowanceTotalAmount: '393.00', chargeTotalAmount: '214.00', total: '4152.00',
  });
  t.deepEqual(document.exchangeRate, { sourceCurrency: 'USD', targetCurrency: 'COP', rate: '3650.00', date: '2020-09-21' });
  t.deepEqual(document.taxes.map((tax) => [tax.schemeId, tax.percent, tax.taxableAmount, tax.taxAmount]), [['01', '19.00', '1697.00', '322.00'], ['01', '5.00', '2202.00', '110.00']]);
  t.deepEqual(document.withholdings.map((withholding) => [withholding.type, withholding.schemeId, withholding.percent, withholding.taxableAmount, withholding.taxAmount]), [
    ['rete_iva', '05', '15.00', '322.00', '48.30'],
    ['rete_fuente', '06', '11.00', '2202.00', '242.22'],
  ]);
  t.like(document.supplier, { idNumber: '95872202', dv: '8', idType: '31', personType: 'LEGAL', name: 'RAZÓN SOCIAL VENDEDOR', city: 'Arbeláez' });
  t.like(document.customer, { idNumber: '20227859', dv: '8', idType: '31', personType: 'NATURAL' });
  t.is(nitCheckDigit('95872202'), '8');
  t.deepEqual(document.lines.map((line) => [line.quantity, line.unitPrice, line.lineExtensionAmount]), [['2.000000', '1000.00', '1697.00'], ['1.000000', '2000.00', '2202.00']]);
  t.deepEqual(totalsInconsistencies(document), []);
});
