import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { absoluteDecimal, compareDecimals, subtractDecimals } from '../../domain/ubl/amounts';
import { parseUbl } from '../../domain/ubl/parse';
import { leavesPrepaidUndeducted, totalsInconsistencies, type MonetaryTotals } from '../../domain/ubl/totals-consistency';
import { FIXTURES, INCONSISTENT_FIXTURES, OWN_FIXTURES } from '../support/ingestion';

/** attached-contingency-inc.xml's figures: IVA 19 % and 5 %, INC 8 %, a discount, a charge, an advance and a payable rounding. */
const consistent: MonetaryTotals = {
  subTotal: '700000.00',
  taxInclusiveAmount: '800100.00',
  total: '709100.00',
  allowanceTotalAmount: '16002.00',
  chargeTotalAmount: '25000.00',
  prepaidAmount: '100000.00',
  payableRoundingAmount: '2.00',
  taxes: [{ taxAmount: '85500.00' }, { taxAmount: '5000.00' }, { taxAmount: '9600.00' }],
  lines: [{ lineExtensionAmount: '450000.00' }, { lineExtensionAmount: '100000.00' }, { lineExtensionAmount: '120000.00' }, { lineExtensionAmount: '30000.00' }],
  allowanceCharges: [
    { chargeIndicator: false, amount: '16002.00' },
    { chargeIndicator: true, amount: '25000.00' },
  ],
  prepaidPayments: [{ paidAmount: '100000.00' }],
};

test('exact differences and comparisons on decimal text', (t) => {
  t.is(subtractDecimals('14024.07', '14025.07'), '-1.00');
  t.is(subtractDecimals('0.1', '0.005'), '0.095');
  t.is(absoluteDecimal('-1.50'), '1.50');
  t.is(compareDecimals('1.0', '1.00'), 0);
  t.is(compareDecimals('0.999', '1'), -1);
  t.is(compareDecimals('-2', '1'), -1);
  t.is(compareDecimals('10', '9.99'), 1);
});

test('totals that add up give no warning: discounts, charges, advance and payable rounding are in the formula', (t) => {
  t.deepEqual(totalsInconsistencies(consistent), []);
});

test('a PayableAmount that does not follow from the other totals is payable_amount_mismatch, naming both figures', (t) => {
  const warnings = totalsInconsistencies({ ...consistent, total: '719100.00' });
  t.deepEqual(warnings.map((warning) => warning.code), ['payable_amount_mismatch']);
  t.is(
    warnings[0].message,
    'PayableAmount is 719100.00 but TaxInclusiveAmount − AllowanceTotalAmount + ChargeTotalAmount − PrepaidAmount + PayableRoundingAmount is 709100.00 (a difference of 10000.00), and 809100.00 without deducting PrepaidAmount',
  );
  const withoutAdvance = totalsInconsistencies({ ...consistent, prepaidAmount: null, prepaidPayments: [], total: '819100.00' });
  t.is(
    withoutAdvance[0].message,
    'PayableAmount is 819100.00 but TaxInclusiveAmount − AllowanceTotalAmount + ChargeTotalAmount − PrepaidAmount + PayableRoundingAmount is 809100.00 (a difference of 10000.00)',
  );
});

test('an advance reported in PrepaidAmount but left in PayableAmount is no inconsistency (as Anexo 1.9 software writes it)', (t) => {
  // Odoo's l10n_co_dian, partially paid invoice: TaxInclusiveAmount 4115065.06, two PrepaidPayment
  // (1000000.00 + 391910.96) summed in PrepaidAmount, PayableAmount 4115065.06.
  const advanceNotDeducted: MonetaryTotals = {
    subTotal: '3919109.58',
    taxInclusiveAmount: '4115065.06',
    total: '4115065.06',
    allowanceTotalAmount: null,
    chargeTotalAmount: null,
    prepaidAmount: '1391910.96',
    payableRoundingAmount: null,
    taxes: [{ taxAmount: '195955.48' }],
    lines: [{ lineExtensionAmount: '3919109.58' }],
    allowanceCharges: [],
    prepaidPayments: [{ paidAmount: '1000000.00' }, { paidAmount: '391910.96' }],
  };
  t.deepEqual(totalsInconsistencies(advanceNotDeducted), []);
  // DIAN's own example deducts it: that reading stays consistent too.
  t.deepEqual(totalsInconsistencies({ ...advanceNotDeducted, total: '2723154.10' }), []);
  // Between the two readings, or beyond both, is still flagged.
  t.deepEqual(totalsInconsistencies({ ...advanceNotDeducted, total: '3500000.00' }).map((warning) => warning.code), ['payable_amount_mismatch']);
  t.deepEqual(totalsInconsistencies({ ...advanceNotDeducted, total: '4116065.06' }).map((warning) => warning.code), ['payable_amount_mismatch']);
  // Which reading the document took (its PDF tells an undeducted advance after the total to pay).
  t.true(leavesPrepaidUndeducted(advanceNotDeducted));
  t.false(leavesPrepaidUndeducted({ ...advanceNotDeducted, total: '2723154.10' }));
  t.false(leavesPrepaidUndeducted({ ...advanceNotDeducted, total: '3500000.00' }), 'neither reading: shown as written');
  t.false(leavesPrepaidUndeducted({ ...advanceNotDeducted, prepaidAmount: '0.00', prepaidPayments: [] }), 'no advance');
});

test('withholdings are not deducted from PayableAmount: a total net of them is flagged', (t) => {
  // attached-contingency-inc.xml's ReteRenta, ReteIVA and ReteICA: 16750.00 + 13575.00 + 6762.00.
  const netOfWithholdings = totalsInconsistencies({ ...consistent, total: '672013.00' });
  t.deepEqual(netOfWithholdings.map((warning) => warning.code), ['payable_amount_mismatch']);
});

test('a TaxInclusiveAmount other than LineExtensionAmount plus the taxes is tax_inclusive_mismatch (and PayableAmount still checked against it as written)', (t) => {
  const warnings = totalsInconsistencies({ ...consistent, taxInclusiveAmount: '790500.00', total: '699500.00' });
  t.deepEqual(warnings.map((warning) => warning.code), ['tax_inclusive_mismatch']);
  t.is(warnings[0].message, 'TaxInclusiveAmount is 790500.00 but LineExtensionAmount + the taxes (TaxTotal) is 800100.00 (a difference of -9600.00)');
});

test("a LineExtensionAmount other than the sum of the lines' is line_extension_mismatch", (t) => {
  const warnings = totalsInconsistencies({ ...consistent, lines: consistent.lines.slice(1) });
  t.deepEqual(warnings.map((warning) => warning.code), ['line_extension_mismatch']);
  t.regex(warnings[0].message, /^LineExtensionAmount is 700000\.00 but the sum of the lines' LineExtensionAmount is 250000\.00/);
});

test('every inconsistency is reported, in a fixed order', (t) => {
  const warnings = totalsInconsistencies({ ...consistent, subTotal: '1.00', taxInclusiveAmount: '5.00', total: '7.00' });
  t.deepEqual(warnings.map((warning) => warning.code), ['line_extension_mismatch', 'tax_inclusive_mismatch', 'payable_amount_mismatch']);
});

test('DIAN compares whole units: a difference under 1.00 passes, 1.00 or more is flagged', (t) => {
  t.deepEqual(totalsInconsistencies({ ...consistent, total: '709100.99' }), []);
  t.deepEqual(totalsInconsistencies({ ...consistent, total: '709099.01' }), []);
  t.deepEqual(totalsInconsistencies({ ...consistent, total: '709101.00' }).map((warning) => warning.code), ['payable_amount_mismatch']);
  t.deepEqual(totalsInconsistencies({ ...consistent, total: '709099.00' }).map((warning) => warning.code), ['payable_amount_mismatch']);
  // Lines written with more decimals than the total (DIAN allows them) round within the tolerance.
  const thirds = { lines: [{ lineExtensionAmount: '333.333333' }, { lineExtensionAmount: '333.333333' }, { lineExtensionAmount: '333.333333' }] };
  t.deepEqual(totalsInconsistencies({ ...consistent, ...thirds, subTotal: '1000.00', taxInclusiveAmount: '1000.00', total: '1000.00', taxes: [], allowanceTotalAmount: null, chargeTotalAmount: null, prepaidAmount: null, payableRoundingAmount: null, allowanceCharges: [], prepaidPayments: [] }), []);
});

test('absent monetary totals count as the sums of their lists, else 0', (t) => {
  const fromLists = { ...consistent, allowanceTotalAmount: null, chargeTotalAmount: null, prepaidAmount: null };
  t.deepEqual(totalsInconsistencies(fromLists), []);
  const noLists = { ...fromLists, allowanceCharges: [], prepaidPayments: [], payableRoundingAmount: null, total: '800100.00' };
  t.deepEqual(totalsInconsistencies(noLists), []);
});

test('without a TaxInclusiveAmount only the lines are checked', (t) => {
  t.deepEqual(totalsInconsistencies({ ...consistent, taxInclusiveAmount: null, total: '1.00' }), []);
  t.deepEqual(totalsInconsistencies({ ...consistent, taxInclusiveAmount: null, subTotal: '1.00' }).map((warning) => warning.code), ['line_extension_mismatch']);
});

test('every real DIAN document of the fixtures adds up (no warning), but the one that does not', (t) => {
  const files = [FIXTURES, OWN_FIXTURES].flatMap((dir) => readdirSync(dir).filter((name) => name.endsWith('.xml')).map((name) => path.join(dir, name)));
  t.true(files.length >= 12, files.join(', '));
  for (const file of files) {
    const codes = totalsInconsistencies(parseUbl(readFileSync(file)).document).map((warning) => warning.code);
    t.deepEqual(codes, INCONSISTENT_FIXTURES[path.basename(file)] ?? [], path.basename(file));
  }
});
