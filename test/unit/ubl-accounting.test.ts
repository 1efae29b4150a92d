import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { documentAccounting, type StoredAccounting } from '../../domain/documents/accounting';
import { copEquivalents, rateToCop, toCop } from '../../domain/documents/cop-equivalents';
import { withholdingType } from '../../domain/ubl/accounting';
import { multiplyDecimals, roundDecimal, sumDecimals } from '../../domain/ubl/amounts';
import { parseUbl } from '../../domain/ubl/parse';
import { UblParseError } from '../../domain/ubl/types';
import { FIXTURES, OWN_FIXTURES } from '../support/ingestion';

const parse = (dir: string, file: string) => parseUbl(readFileSync(path.join(dir, file))).document;

test('multiplyDecimals is exact and rounds half-up (away from zero) where floats would not', (t) => {
  t.is(multiplyDecimals('28.50', '4012.37'), '114352.55'); // exactly 114352.545
  t.is((28.5 * 4012.37).toFixed(2), '114352.54', 'the float product rounds the other way');
  t.is(multiplyDecimals('14994.07', '3100'), '46481617.00');
  t.is(multiplyDecimals('9.66', '4012.37'), '38759.49');
  t.is(multiplyDecimals('0.005', '1'), '0.01');
  t.is(multiplyDecimals('-0.005', '1'), '-0.01');
  t.is(multiplyDecimals('123456789012.34', '4321.123456789'), '533472026901072.85');
  t.is(multiplyDecimals('1', '0.004'), '0.00');
  t.is(multiplyDecimals('2', '3', 0), '6');
});

test('roundDecimal rounds half-up to the scale and pads', (t) => {
  t.is(roundDecimal('6299.945'), '6299.95');
  t.is(roundDecimal('6299.944'), '6299.94');
  t.is(roundDecimal('5'), '5.00');
  t.is(roundDecimal('0.966', 2), '0.97');
  t.is(roundDecimal('-1.005'), '-1.01');
  t.is(roundDecimal('12.3', 4), '12.3000');
});

test('withholding types by TaxScheme ID, else by name', (t) => {
  t.is(withholdingType('06', 'ReteRenta'), 'rete_fuente');
  t.is(withholdingType('05', null), 'rete_iva');
  t.is(withholdingType('07', null), 'rete_ica');
  t.is(withholdingType('', 'ReteFuente'), 'rete_fuente');
  t.is(withholdingType('', 'Rete IVA'), 'rete_iva');
  t.is(withholdingType('ZZ', 'ReteICA'), 'rete_ica');
  t.is(withholdingType('01', 'IVA'), 'other');
});

test('the USD fixture: withholdings, document-level discount and charge, prepayment and exchange rate as written', (t) => {
  const document = parse(OWN_FIXTURES, 'withholdings-usd.xml');
  t.deepEqual(document.withholdings, [
    { type: 'rete_fuente', schemeId: '06', schemeName: 'ReteRenta', percent: '2.50', taxableAmount: '1000.00', taxAmount: '25.00' },
    { type: 'rete_iva', schemeId: '05', schemeName: 'ReteIVA', percent: '15.00', taxableAmount: '190.00', taxAmount: '28.50' },
    { type: 'rete_ica', schemeId: '07', schemeName: 'ReteICA', percent: '0.966', taxableAmount: '1000.00', taxAmount: '9.66' },
  ]);
  t.deepEqual(document.allowanceCharges, [
    { chargeIndicator: false, reasonCode: '11', reason: 'Descuento por pronto pago', percent: '5.00', amount: '50.00', baseAmount: '1000.00' },
    { chargeIndicator: true, reasonCode: null, reason: 'Cargo por envío de medios físicos', percent: '2.00', amount: '20.00', baseAmount: '1000.00' },
  ]);
  t.is(document.allowanceTotalAmount, '50.00');
  t.is(document.chargeTotalAmount, '20.00');
  t.is(document.prepaidAmount, '100.00');
  t.deepEqual(document.prepaidPayments, [
    { id: 'ANT-2026-014', paidAmount: '100.00', receivedDate: '2026-01-25', paidDate: '2026-01-25', instruction: 'Anticipo recibido por transferencia' },
  ]);
  t.deepEqual(document.exchangeRate, { sourceCurrency: 'USD', targetCurrency: 'COP', rate: '4012.37', date: '2026-02-10' });
  t.deepEqual(document.taxes.map((tax) => tax.schemeId), ['01'], 'withholdings are not taxes');
  t.is(document.vat, '190.00');
});

test('shared fixtures: only document-level allowances count; prepayments and rates are read as written', (t) => {
  const setp = parse(FIXTURES, 'invoice-signed-setp.xml');
  t.deepEqual(setp.allowanceCharges, [], 'the discount of invoice-signed-setp.xml is on its line, already in the line amount');
  t.deepEqual(setp.withholdings, []);
  t.is(setp.prepaidAmount, '1000.00');
  t.deepEqual(setp.prepaidPayments, [{ id: 'SFR3123856', paidAmount: '1000.00', receivedDate: '2018-09-29', paidDate: '2018-09-29', instruction: 'Prepago recibido' }]);
  t.is(setp.exchangeRate, null);

  const credit = parse(FIXTURES, 'creditnote-usd.xml');
  t.deepEqual(credit.exchangeRate, { sourceCurrency: 'USD', targetCurrency: 'COP', rate: '3100', date: '2019-06-21' });
  t.deepEqual(credit.allowanceCharges, []);

  const other = parse(FIXTURES, 'toolbox-other-currency.xml');
  t.deepEqual(other.exchangeRate, { sourceCurrency: 'COP', targetCurrency: 'USD', rate: '5000.00', date: '2023-05-03' });

  const free = parse(FIXTURES, 'toolbox-free-samples.xml');
  t.is(free.prepaidAmount, '0.00');
  t.deepEqual(free.prepaidPayments, [{ id: null, paidAmount: '0', receivedDate: null, paidDate: null, instruction: null }]);

  const support = parse(OWN_FIXTURES, 'support-document.xml');
  t.deepEqual(support.withholdings.map((entry) => [entry.type, entry.taxAmount]), [['rete_fuente', '40000.00'], ['rete_ica', '9660.00']]);
});

test('TaxTotal/RoundingAmount, each tributo its own, is summed as written and kept apart from the tax total', (t) => {
  const setpXml = readFileSync(path.join(FIXTURES, 'invoice-signed-setp.xml'), 'utf8');
  t.is(parseUbl(setpXml).document.taxRoundingAmount, null, 'the fixture writes none');
  // Hand-made: the IVA total (2424.01) and the ICA total (0.00) each carry a rounding.
  const rounded = setpXml
    .replace('<cbc:TaxAmount currencyID="COP">2424.01</cbc:TaxAmount>', '<cbc:TaxAmount currencyID="COP">2424.01</cbc:TaxAmount><cbc:RoundingAmount currencyID="COP">0.49</cbc:RoundingAmount>')
    .replace(/(<cac:TaxTotal>\s*<cbc:TaxAmount currencyID="COP">0\.00<\/cbc:TaxAmount>)/, '$1<cbc:RoundingAmount currencyID="COP">-0.2</cbc:RoundingAmount>');
  t.is((rounded.match(/<\/cbc:RoundingAmount>/g) ?? []).length, 2, 'both roundings were written');
  const document = parseUbl(rounded).document;
  t.is(document.taxRoundingAmount, '0.29');
  t.is(sumDecimals(document.taxes.map((tax) => tax.taxAmount)), '2424.01', 'the subtotals are unchanged');
  const row = { ...accountingRowOf(document), tax_rounding_amount: document.taxRoundingAmount };
  t.like(documentAccounting(row), { taxTotal: '2424.01', taxRounding: '0.29' });
  t.is(documentAccounting({ ...row, tax_rounding_amount: null }).taxRounding, '0.00');
  const error = t.throws(() => parseUbl(rounded.replace('>0.49<', '>0,49<')), { instanceOf: UblParseError });
  t.is(error.code, 'invalid_field');
});

function accountingRowOf(document: ReturnType<typeof parse>): StoredAccounting {
  return {
    currency: document.currency, sub_total: document.subTotal, vat: document.vat, total: document.total, taxes: document.taxes,
    withholdings: document.withholdings, allowance_charges: document.allowanceCharges, prepaid_payments: document.prepaidPayments,
    prepaid_amount: document.prepaidAmount, allowance_total: document.allowanceTotalAmount, charge_total: document.chargeTotalAmount,
    payable_rounding_amount: document.payableRoundingAmount, tax_rounding_amount: document.taxRoundingAmount,
    exchange_rate: null, exchange_source_currency: null, exchange_target_currency: null, exchange_rate_date: null,
  };
}

test('PayableRoundingAmount is read as written; a document without one has null', (t) => {
  const setpXml = readFileSync(path.join(FIXTURES, 'invoice-signed-setp.xml'), 'utf8');
  t.is(parseUbl(setpXml).document.payableRoundingAmount, null);
  const rounded = setpXml.replace(
    '<cbc:PayableAmount currencyID="COP">14024.07</cbc:PayableAmount>',
    '<cbc:PayableRoundingAmount currencyID="COP">-0.07</cbc:PayableRoundingAmount><cbc:PayableAmount currencyID="COP">14024.00</cbc:PayableAmount>',
  );
  t.not(rounded, setpXml);
  t.is(parseUbl(rounded).document.payableRoundingAmount, '-0.07');
  const error = t.throws(() => parseUbl(rounded.replace('>-0.07<', '>-0,07<')), { instanceOf: UblParseError });
  t.is(error.code, 'invalid_field');
});

test('a non-decimal or non-positive exchange rate is an invalid_field', (t) => {
  const xml = readFileSync(path.join(OWN_FIXTURES, 'withholdings-usd.xml'), 'utf8');
  for (const rate of ['4.012,37', '0.00', '-3']) {
    const error = t.throws(() => parseUbl(xml.replace('<cbc:CalculationRate>4012.37<', `<cbc:CalculationRate>${rate}<`)), { instanceOf: UblParseError });
    t.is(error?.code, 'invalid_field', rate);
  }
});

test('COP equivalents: only for a foreign-currency document whose rate converts it to COP', (t) => {
  const usd = { sourceCurrency: 'USD', targetCurrency: 'COP', rate: '4012.37', date: null };
  t.is(rateToCop('USD', usd), '4012.37');
  t.is(rateToCop('COP', usd), null);
  t.is(rateToCop('EUR', usd), null);
  t.is(rateToCop('COP', { sourceCurrency: 'COP', targetCurrency: 'USD', rate: '5000.00', date: null }), null);
  t.is(rateToCop('USD', null), null);
  t.is(toCop('1060.00', '4012.37'), '4253112.20');
  t.deepEqual(
    copEquivalents({ currency: 'USD', exchangeRate: usd, subTotal: '1000.00', vat: '190.00', taxTotal: '190.00', total: '1060.00', withholdingAmounts: ['25.00', '28.50', '9.66'] }),
    {
      rate: '4012.37',
      subTotal: '4012370.00',
      vat: '762350.30',
      taxTotal: '762350.30',
      total: '4253112.20',
      withholdings: ['100309.25', '114352.55', '38759.49'],
      withholdingTotal: '253421.29',
    },
  );
});

test('documentAccounting reads the stored columns back, with COP equivalents and totals', (t) => {
  const document = parse(OWN_FIXTURES, 'withholdings-usd.xml');
  const row: StoredAccounting = {
    currency: 'USD',
    sub_total: '1000.00',
    vat: '190.00',
    total: '1060.00',
    taxes: document.taxes,
    withholdings: document.withholdings,
    allowance_charges: document.allowanceCharges,
    prepaid_payments: document.prepaidPayments,
    prepaid_amount: '100.00',
    allowance_total: null,
    charge_total: null,
    payable_rounding_amount: null,
    tax_rounding_amount: null,
    exchange_rate: '4012.37',
    exchange_source_currency: 'USD',
    exchange_target_currency: 'COP',
    exchange_rate_date: '2026-02-10',
  };
  const accounting = documentAccounting(row);
  t.deepEqual(accounting.withholdings.map((entry) => entry.taxAmountCop), ['100309.25', '114352.55', '38759.49']);
  t.is(accounting.withholdingTotal, '63.16');
  t.is(accounting.allowanceTotal, '50.00', 'summed from the list when the total is absent');
  t.is(accounting.chargeTotal, '20.00');
  t.is(accounting.prepaidAmount, '100.00');
  t.deepEqual(accounting.cop, { subTotal: '4012370.00', vat: '762350.30', taxTotal: '762350.30', total: '4253112.20', withholdingTotal: '253421.29' });

  const empty = documentAccounting({
    ...row, currency: 'COP', taxes: null, withholdings: null, allowance_charges: null, prepaid_payments: null, prepaid_amount: null,
    exchange_rate: null, exchange_source_currency: null, exchange_target_currency: null, exchange_rate_date: null,
  });
  t.deepEqual(
    { ...empty, withholdings: empty.withholdings.length },
    { taxes: [], taxTotal: null, withholdings: 0, withholdingTotal: '0.00', allowanceCharges: [], allowanceTotal: '0.00', chargeTotal: '0.00', prepaidAmount: '0.00', prepaidPayments: [], payableRounding: '0.00', taxRounding: '0.00', exchangeRate: null, cop: null },
  );
});

test('a contingency invoice in an AttachedDocument: every tributo, the rounding, and a total that adds up from them', (t) => {
  // BOM, CRLF, cac/cbc under JAXB's ns2/ns3 prefixes, the invoice's own CDATA note splitting the wrapper's CDATA.
  const parsed = parseUbl(readFileSync(path.join(OWN_FIXTURES, 'attached-contingency-inc.xml')));
  const document = parsed.document;
  t.is(parsed.container, 'AttachedDocument');
  t.like(parsed.validation, { responseCode: '02' });
  t.like(document, { dianDocumentType: 'contingency_invoice', typeCode: '03', number: 'CONT7731', subTotal: '700000.00', vat: '90500.00', total: '709100.00' });
  t.deepEqual(document.notes[1], 'Entrega en bodega <principal> & muelle 3');
  t.deepEqual(
    document.taxes.map((tax) => [tax.schemeId, tax.percent, tax.taxableAmount, tax.taxAmount]),
    [['01', '19.00', '450000.00', '85500.00'], ['01', '5.00', '100000.00', '5000.00'], ['04', '8.00', '120000.00', '9600.00']],
  );
  const row = accountingRowOf(document);
  const accounting = documentAccounting(row);
  t.is(accounting.taxTotal, '100100.00', 'IVA 19 % + IVA 5 % + INC 8 %; vat alone is 90500.00');
  t.is(accounting.payableRounding, '2.00');
  // Anexo 1.9, LegalMonetaryTotal: PayableAmount = LineExtension + taxes − allowances + charges − prepayments + rounding.
  const payable = sumDecimals([row.sub_total!, accounting.taxTotal!, `-${accounting.allowanceTotal}`, accounting.chargeTotal, `-${accounting.prepaidAmount}`, accounting.payableRounding]);
  t.is(payable, document.total);
  t.is(accounting.withholdingTotal, '37087.00', 'withholdings stay outside PayableAmount');
});
