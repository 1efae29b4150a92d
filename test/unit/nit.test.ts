import test from 'ava';
import { isValidNit, nitCheckDigit } from '../../domain/nit';

// Check digits published with these NITs (RUT certificates and the DIAN sample documents).
const KNOWN: [string, string][] = [
  ['800197268', '4'], // DIAN
  ['900108281', '3'], // OPTICAS GMO COLOMBIA S A S (customer of the DIAN samples)
  ['890903938', '8'], // Bancolombia
  ['860034313', '7'], // Banco Davivienda
  ['899999068', '1'], // Ecopetrol
  ['860007738', '9'], // Banco Popular
  ['830122566', '1'], // Colombia Telecomunicaciones
];

for (const [nit, dv] of KNOWN) {
  test(`check digit of ${nit} is ${dv}`, (t) => {
    t.is(nitCheckDigit(nit), dv);
  });
}

test('a remainder of 0 or 1 is the check digit itself', (t) => {
  // 11-weighted sums: find NITs whose remainder is 0 and 1 and verify the rule directly.
  const weights = [3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71];
  const remainder = (nit: string) =>
    [...nit].reverse().reduce((sum, digit, index) => sum + Number(digit) * weights[index], 0) % 11;
  const samples = Array.from({ length: 2000 }, (_, index) => String(10_000_000 + index * 7919));
  const zero = samples.find((nit) => remainder(nit) === 0);
  const one = samples.find((nit) => remainder(nit) === 1);
  t.truthy(zero && one);
  t.is(nitCheckDigit(zero!), '0');
  t.is(nitCheckDigit(one!), '1');
});

test('rejects values that are not 5 to 15 digits', (t) => {
  for (const bad of ['', '1234', '90010828-1', '9001O8281', '1234567890123456']) {
    t.false(isValidNit(bad));
    t.throws(() => nitCheckDigit(bad), { instanceOf: RangeError });
  }
});
