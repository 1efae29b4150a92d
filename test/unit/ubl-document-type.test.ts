import test from 'ava';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { eligibleForDianEvents, referencedInvoiceTypeCode } from '../../domain/dian/event-eligibility';
import { classifyDocument, schemeOfName } from '../../domain/ubl/document-type';
import { parseUbl } from '../../domain/ubl/parse';
import type { CodeScheme, DianDocumentType } from '../../domain/ubl/types';
import { documentTitle } from '../../domain/pdf/format';
import { FIXTURES, OWN_FIXTURES } from '../support/ingestion';

const SHARED = FIXTURES;
const OWN = OWN_FIXTURES;
const parse = (dir: string, file: string) => parseUbl(readFileSync(path.join(dir, file))).document;

test('the UUID schemeName names the scheme, whatever the hash suffix or case', (t) => {
  t.is(schemeOfName('CUFE-SHA384'), 'CUFE');
  t.is(schemeOfName('CUDE-SHA384'), 'CUDE');
  t.is(schemeOfName('cuds-sha384'), 'CUDS');
  t.is(schemeOfName('CUFE-SHA1'), 'CUFE');
  t.is(schemeOfName(null), null);
  t.is(schemeOfName('SHA384'), null);
});

test('invoice type codes of the annex map to DIAN document types and their default schemes', (t) => {
  const cases: [string, string, string][] = [
    ['01', 'electronic_invoice', 'CUFE'],
    ['02', 'export_invoice', 'CUFE'],
    ['03', 'contingency_invoice', 'CUFE'],
    ['04', 'contingency_invoice', 'CUFE'],
    ['05', 'support_document', 'CUDS'],
    ['20', 'pos_equivalent', 'CUDE'],
  ];
  for (const [code, type, scheme] of cases as [string, DianDocumentType, CodeScheme][]) {
    t.deepEqual(classifyDocument('Invoice', code, null), { dianDocumentType: type, codeScheme: scheme }, code);
  }
});

test('the UUID scheme wins over the type default and decides the type when the code is absent or unknown', (t) => {
  t.deepEqual(classifyDocument('Invoice', '20', 'CUDE-SHA384'), { dianDocumentType: 'pos_equivalent', codeScheme: 'CUDE' });
  t.deepEqual(classifyDocument('Invoice', null, 'CUDS-SHA384'), { dianDocumentType: 'support_document', codeScheme: 'CUDS' });
  t.deepEqual(classifyDocument('Invoice', '35', 'CUDE-SHA384'), { dianDocumentType: 'equivalent_document', codeScheme: 'CUDE' });
  t.deepEqual(classifyDocument('Invoice', null, 'CUFE-SHA384'), { dianDocumentType: 'electronic_invoice', codeScheme: 'CUFE' });
  t.deepEqual(classifyDocument('Invoice', null, null), { dianDocumentType: 'electronic_invoice', codeScheme: 'CUFE' });
  // A POS ticket whose UUID wrongly says CUFE keeps its type (so it stays ineligible) and the scheme it declared.
  t.deepEqual(classifyDocument('Invoice', '20', 'CUFE-SHA384'), { dianDocumentType: 'pos_equivalent', codeScheme: 'CUFE' });
});

test('notes: credit and debit notes carry a CUDE; a CUDS credit note (type 95) adjusts a support document', (t) => {
  t.deepEqual(classifyDocument('CreditNote', '91', 'CUDE-SHA384'), { dianDocumentType: 'credit_note', codeScheme: 'CUDE' });
  t.deepEqual(classifyDocument('DebitNote', '92', null), { dianDocumentType: 'debit_note', codeScheme: 'CUDE' });
  t.deepEqual(classifyDocument('CreditNote', '95', 'CUDS-SHA384'), { dianDocumentType: 'support_document_adjustment', codeScheme: 'CUDS' });
  t.deepEqual(classifyDocument('CreditNote', null, 'CUDS-SHA384'), { dianDocumentType: 'support_document_adjustment', codeScheme: 'CUDS' });
});

test('a nota de ajuste al documento equivalente (94 crédito, 93 débito, CUDE) is not a credit or debit note of an invoice', (t) => {
  // Anexo técnico del documento equivalente electrónico, numeral 16.3; DIAN's toolbox POS example
  // (Caja de herramientas Doc-Equivalentes V1-3) refers to one as a CreditNoteDocumentReference
  // with DocumentTypeCode 94 and a CUDE.
  const adjustment = { dianDocumentType: 'equivalent_document_adjustment', codeScheme: 'CUDE' };
  t.deepEqual(classifyDocument('CreditNote', '94', 'CUDE-SHA384'), adjustment);
  t.deepEqual(classifyDocument('CreditNote', '93', null), adjustment);
  t.deepEqual(classifyDocument('DebitNote', '93', 'CUDE-SHA384'), adjustment);
  const xml = readFileSync(path.join(SHARED, 'creditnote-usd.xml'), 'utf8').replace('<cbc:CreditNoteTypeCode>91</cbc:CreditNoteTypeCode>', '<cbc:CreditNoteTypeCode>94</cbc:CreditNoteTypeCode>');
  const note = parseUbl(xml).document;
  t.like(note, { typeCode: '94', dianDocumentType: 'equivalent_document_adjustment', codeScheme: 'CUDE' });
  t.is(documentTitle(note), 'Nota de ajuste del documento equivalente electrónico');
  t.false(eligibleForDianEvents({ document_type: 'credit_note', cufe: note.cufe, dian_document_type: note.dianDocumentType, dian_type_code: '94', code_scheme: 'CUDE' }).eligible);
});

test("DIAN's own nota de ajuste del documento soporte (type 95 written as InvoiceTypeCode in a CreditNote) is read as such", (t) => {
  const note = parse(OWN, 'toolbox-support-adjustment-note.xml');
  t.like(note, {
    documentType: 'CreditNote', number: 'NA102', typeCode: '95', dianDocumentType: 'support_document_adjustment', codeScheme: 'CUDS',
    dianEnvironment: 'testing', issuedAt: '2022-02-19T21:25:36.000Z', currency: 'COP',
    subTotal: '3899000.00', vat: '432530.00', total: '4152176.00', allowanceTotalAmount: '393799.00', chargeTotalAmount: '214445.00',
  });
  t.like(note.supplier, { idNumber: '1010195560', dv: '7', idType: '31', personType: 'NATURAL', name: 'RAZÓN SOCIAL VENDEDOR' });
  t.like(note.customer, { idNumber: '800197268', dv: '4', idType: '31' });
  // The referenced support document's date is written '202-08-18' in DIAN's sample: no date, not a wrong one.
  t.deepEqual(note.referencedDocuments, [{ number: 'DS236000000', cufe: 'c96a728f4453822bfc69b94253880d21d29dd1a9424444da07610799c203506d33fa4f16830dbd6ee0febb4711bfa23a', issueDate: null }]);
  t.deepEqual(note.lines.map((line) => [line.lineExtensionAmount, line.taxes[0]?.percent]), [['1697000.00', '19.00'], ['2202000.00', '5.00']]);
});

test('a real production health-sector invoice (SS-CUFE, in its AttachedDocument) is read as written: copago as an advance, no taxes', (t) => {
  const parsed = parseUbl(readFileSync(path.join(OWN, 'production-health-attached.xml')));
  t.like(parsed.validation, { responseCode: '02', validationDate: '2025-07-09' });
  t.like(parsed.document, {
    number: 'A01E5687', typeCode: '01', dianDocumentType: 'electronic_invoice', codeScheme: 'CUFE', dianEnvironment: 'production',
    issuedAt: '2025-07-09T16:47:14.000Z', dueDate: '2025-09-07', subTotal: '1120000.00', vat: null, taxes: [], total: '1055600.00', prepaidAmount: '64400.00',
  });
  t.like(parsed.document.supplier, { idNumber: '901019681', dv: '8', idType: '31', personType: 'LEGAL', name: 'MEDICAL ENERGY SAS' });
  t.like(parsed.document.customer, { idNumber: '830003564', dv: '7', name: 'ENTIDAD PROMOTORA DE SALUD FAMISANAR S A S' });
  t.deepEqual(parsed.document.prepaidPayments, [{ id: '1', paidAmount: '64400.00', receivedDate: '2025-07-01', paidDate: null, instruction: null }]);
});

test('the shared DIAN fixtures classify as what they are', (t) => {
  const expected: Record<string, [string, string, string | null]> = {
    'attached-document-volt.xml': ['electronic_invoice', 'CUFE', '01'],
    'creditnote-usd.xml': ['credit_note', 'CUDE', null],
    'debitnote.xml': ['debit_note', 'CUDE', null],
    'invoice-signed-setp.xml': ['electronic_invoice', 'CUFE', '01'],
    'toolbox-excluded-vat.xml': ['electronic_invoice', 'CUFE', '01'],
    'toolbox-free-samples.xml': ['electronic_invoice', 'CUFE', '01'],
    'toolbox-other-currency.xml': ['electronic_invoice', 'CUFE', '01'],
  };
  for (const [file, [type, scheme]] of Object.entries(expected)) {
    const document = parse(SHARED, file);
    t.is(document.dianDocumentType as string, type, file);
    t.is(document.codeScheme as string, scheme, file);
  }
});

test('the POS and support-document fixtures classify as pos_equivalent/CUDE and support_document/CUDS', (t) => {
  const pos = parse(OWN, 'pos-equivalent.xml');
  t.is(pos.typeCode, '20');
  t.is(pos.dianDocumentType, 'pos_equivalent');
  t.is(pos.codeScheme, 'CUDE');
  const support = parse(OWN, 'support-document.xml');
  t.is(support.typeCode, '05');
  t.is(support.dianDocumentType, 'support_document');
  t.is(support.codeScheme, 'CUDS');
  t.is(support.supplier.idType, '13', 'the seller of a support document is a person not obliged to invoice');
  t.is(support.customer.idNumber, '900108281');
});

const invoiceRow = {
  document_type: 'electronic_invoice',
  cufe: 'f'.repeat(96),
  dian_document_type: 'electronic_invoice',
  dian_type_code: '01',
  code_scheme: 'CUFE',
};

test('eligibleForDianEvents: electronic invoices of types 01–04 with a CUFE', (t) => {
  t.deepEqual(eligibleForDianEvents(invoiceRow), { eligible: true });
  t.true(eligibleForDianEvents({ ...invoiceRow, dian_document_type: 'export_invoice', dian_type_code: '02' }).eligible);
  t.true(eligibleForDianEvents({ ...invoiceRow, dian_document_type: 'contingency_invoice', dian_type_code: '03' }).eligible);
  t.true(eligibleForDianEvents({ ...invoiceRow, dian_document_type: 'contingency_invoice', dian_type_code: '04' }).eligible);
  // Rows imported before the type was recorded: classified from their collection, code unknown.
  t.true(eligibleForDianEvents({ ...invoiceRow, dian_type_code: null }).eligible);
});

test("an event references the invoice by its own type code (02, 03, 04 are not 01); one never recorded as 01", (t) => {
  t.is(referencedInvoiceTypeCode(invoiceRow), '01');
  t.is(referencedInvoiceTypeCode({ dian_type_code: '02' }), '02');
  t.is(referencedInvoiceTypeCode({ dian_type_code: '03' }), '03');
  t.is(referencedInvoiceTypeCode({ dian_type_code: ' 04 ' }), '04');
  t.is(referencedInvoiceTypeCode({ dian_type_code: null }), '01');
  // Not an invoice type events can reference (refused by eligibleForDianEvents first): never written as such.
  t.is(referencedInvoiceTypeCode({ dian_type_code: '20' }), '01');
});

test('eligibleForDianEvents refuses POS, support documents, notes, unknown types and non-CUFE schemes, saying why', (t) => {
  const refused = (row: typeof invoiceRow | Record<string, string | null>) => {
    const result = eligibleForDianEvents({ ...invoiceRow, ...row });
    return result.eligible ? null : result.reason;
  };
  t.regex(refused({ dian_document_type: 'pos_equivalent', dian_type_code: '20', code_scheme: 'CUDE' }) ?? '', /POS equivalent document \(type 20, CUDE\)/);
  t.regex(refused({ dian_document_type: 'support_document', dian_type_code: '05', code_scheme: 'CUDS' }) ?? '', /support document/);
  t.regex(refused({ dian_document_type: 'equivalent_document', dian_type_code: '35', code_scheme: 'CUDE' }) ?? '', /equivalent document/);
  t.regex(refused({ document_type: 'credit_note', dian_document_type: 'credit_note', code_scheme: 'CUDE' }) ?? '', /not an electronic invoice/);
  t.regex(refused({ cufe: null }) ?? '', /not an electronic invoice with a CUFE/);
  t.regex(refused({ dian_document_type: null }) ?? '', /unknown DIAN type/);
  t.regex(refused({ code_scheme: 'CUDE' }) ?? '', /identified by a CUDE, not a CUFE/);
  t.regex(refused({ dian_type_code: '20' }) ?? '', /type code 20/);
  for (const reason of [refused({ dian_document_type: 'pos_equivalent' }), refused({ code_scheme: null })]) {
    t.regex(reason ?? '', /only on electronic invoices of types 01–04 identified by a CUFE/);
  }
});
