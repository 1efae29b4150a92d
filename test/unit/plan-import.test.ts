import test from 'ava';
import AdmZip from 'adm-zip';
import { planImport } from '../../domain/ingestion/plan-import';
import { fixture } from '../support/ingestion';

// What a ZIP from a provider may hold besides its DIAN documents, and how it is planned.
const CUSTOMER_NIT = '161803398875';
const attached = fixture('attached-document-volt.xml').toString('utf8');
/** The documents the AttachedDocument carries, as a provider might also save them on their own. */
const embedded = (root: string) => {
  const start = attached.indexOf(`<${root}`);
  return Buffer.from(attached.slice(start, attached.indexOf(`</${root}>`, start) + root.length + 3));
};
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\ntrailer\n<<>>\nstartxref\n9\n%%EOF\n');

function zip(entries: [string, Buffer][]): Buffer {
  const archive = new AdmZip();
  for (const [name, data] of entries) archive.addFile(name, data);
  return archive.toBuffer();
}

test("DIAN's ApplicationResponse saved beside the invoice is set aside; the invoice is imported with its PDF", (t) => {
  const plan = planImport(zip([['ad0901.xml', Buffer.from(attached)], ['ar0901.xml', embedded('ApplicationResponse')], ['ad0901.pdf', PDF]]), 'FE.zip', CUSTOMER_NIT, null);
  if (!plan.ok) return t.fail(`${plan.code}: ${plan.message}`);
  t.is(plan.drafts.length, 1);
  t.like(plan.drafts[0], { documentType: 'electronic_invoice', kind: 'purchase', zipPdfEntry: 'ad0901.pdf' });
  t.truthy(plan.drafts[0].validation, "the AttachedDocument's own validation is kept");
});

test('a ZIP whose only XML is of another kind is no_documents_in_archive, naming that entry', (t) => {
  const plan = planImport(zip([['ar0901.xml', embedded('ApplicationResponse')]]), 'AR.zip', CUSTOMER_NIT, null);
  t.like(plan, { ok: false, code: 'no_documents_in_archive' });
  if (!plan.ok) t.regex(plan.message, /"ar0901\.xml" is XML of another kind/);
});

test('a DIAN document in a ZIP that cannot be imported refuses the file, its error naming the entry', (t) => {
  const broken = Buffer.from(embedded('Invoice').toString('utf8').replace('<cbc:IssueDate>', '<cbc:IssueDate>x'));
  const plan = planImport(zip([['ok.xml', Buffer.from(attached)], ['facturas/broken.xml', broken]]), 'FE.zip', CUSTOMER_NIT, null);
  t.like(plan, { ok: false, code: 'invalid_field' });
  if (!plan.ok) t.regex(plan.message, /^entry "facturas\/broken\.xml": cbc:IssueDate/);
  const otherCompany = planImport(zip([['fv.xml', embedded('Invoice')]]), 'FE.zip', '900000001', null);
  t.like(otherCompany, { ok: false, code: 'company_not_a_party' });
  if (!otherCompany.ok) t.regex(otherCompany.message, /^Entry "fv\.xml": Document /);
});

test('the AttachedDocument and the bare invoice it wraps, in one ZIP, make one draft: the one with DIAN\'s validation, with the PDF', (t) => {
  for (const entries of [
    [['fv0901.xml', embedded('Invoice')], ['ad0901.xml', Buffer.from(attached)], ['fv0901.pdf', PDF]],
    [['ad0901.xml', Buffer.from(attached)], ['fv0901.xml', embedded('Invoice')], ['fv0901.pdf', PDF]],
  ] as [string, Buffer][][]) {
    const plan = planImport(zip(entries), 'FE.zip', CUSTOMER_NIT, null);
    if (!plan.ok) return t.fail(`${plan.code}: ${plan.message}`);
    t.is(plan.drafts.length, 1, entries.map(([name]) => name).join(', '));
    t.truthy(plan.drafts[0].validation);
    t.is(plan.drafts[0].zipPdfEntry, 'fv0901.pdf');
  }
});

test('the AttachedDocument and the bare invoice it wraps with one PDF of another name: the PDF is the document\'s', (t) => {
  const plan = planImport(zip([['ad0901.xml', Buffer.from(attached)], ['fv0901.xml', embedded('Invoice')], ['Factura NC424.pdf', PDF]]), 'FE.zip', CUSTOMER_NIT, null);
  if (!plan.ok) return t.fail(`${plan.code}: ${plan.message}`);
  t.is(plan.drafts.length, 1);
  t.is(plan.drafts[0].zipPdfEntry, 'Factura NC424.pdf');
  // Two PDFs of other names: which one is the representation cannot be told.
  const two = planImport(zip([['ad0901.xml', Buffer.from(attached)], ['fv0901.xml', embedded('Invoice')], ['a.pdf', PDF], ['b.pdf', PDF]]), 'FE.zip', CUSTOMER_NIT, null);
  t.like(two, { ok: true, drafts: [{ zipPdfEntry: null }] });
});

test("an AttachedDocument whose ApplicationResponse is DIAN's rejection (04) refuses the file with dian_rejected_document, alone or in a ZIP", (t) => {
  const validated = '<cbc:ResponseCode>02</cbc:ResponseCode>\n      <cbc:Description>Documento validado por la DIAN</cbc:Description>';
  t.true(attached.includes(validated), 'the fixture carries the validation this test turns into a rejection');
  const rejected = Buffer.from(attached.replace(validated, '<cbc:ResponseCode>04</cbc:ResponseCode>\n      <cbc:Description>Documento rechazado por la DIAN</cbc:Description>'));
  const alone = planImport(rejected, 'ad0901.xml', CUSTOMER_NIT, null);
  t.like(alone, { ok: false, code: 'dian_rejected_document' });
  if (!alone.ok) t.regex(alone.message, /was rejected by DIAN \(ApplicationResponse code 04: Documento rechazado por la DIAN\)/);
  const zipped = planImport(zip([['fv0901.xml', embedded('Invoice')], ['ad0901.xml', rejected]]), 'FE.zip', CUSTOMER_NIT, null);
  t.like(zipped, { ok: false, code: 'dian_rejected_document' }, 'the bare invoice beside it does not let the rejected document in');
  t.like(planImport(Buffer.from(attached), 'ad0901.xml', CUSTOMER_NIT, null), { ok: true }, 'the validated original still imports');
});

/** The AttachedDocument's DIAN ApplicationResponse, answering `code` (02 validated, 04 rejected) about the document of `cufe`. */
const responseBeside = (code: string, cufe = volCufe) =>
  Buffer.from(
    embedded('ApplicationResponse')
      .toString('utf8')
      .replace('<cbc:ResponseCode>02</cbc:ResponseCode>\n      <cbc:Description>Documento validado por la DIAN</cbc:Description>', `<cbc:ResponseCode>${code}</cbc:ResponseCode>\n      <cbc:Description>Documento ${code === '04' ? 'rechazado' : 'validado'} por la DIAN</cbc:Description>`)
      .replaceAll(volCufe, cufe),
  );
const volCufe = 'e79f0bd45e5c0494ad03f6dc0d5ae3f7eff36324420feb8cca67419669c05e661eb056fd70dab877aed93451ad2511d7';

test("a bare invoice with DIAN's rejection (04) of its CUFE beside it in the ZIP is refused; with the validation (02) it imports carrying it", (t) => {
  t.true(embedded('ApplicationResponse').toString('utf8').includes(volCufe), 'the response names the invoice it answers');
  const rejected = planImport(zip([['fv0901.xml', embedded('Invoice')], ['ar0901.xml', responseBeside('04')], ['fv0901.pdf', PDF]]), 'FE.zip', CUSTOMER_NIT, null);
  t.like(rejected, { ok: false, code: 'dian_rejected_document' });
  if (!rejected.ok) t.regex(rejected.message, /^Entry "fv0901\.xml": Document NC424 was rejected by DIAN \(ApplicationResponse code 04: Documento rechazado por la DIAN\)/);
  // Upper case is the same CUFE.
  t.like(planImport(zip([['fv0901.xml', embedded('Invoice')], ['ar0901.xml', responseBeside('04', volCufe.toUpperCase())]]), 'FE.zip', CUSTOMER_NIT, null), { ok: false, code: 'dian_rejected_document' });

  const validated = planImport(zip([['fv0901.xml', embedded('Invoice')], ['ar0901.xml', responseBeside('02')]]), 'FE.zip', CUSTOMER_NIT, null);
  if (!validated.ok) return t.fail(`${validated.code}: ${validated.message}`);
  t.like(validated.drafts[0].validation, { responseCode: '02', description: 'Documento validado por la DIAN' });

  const another = planImport(zip([['fv0901.xml', embedded('Invoice')], ['ar0999.xml', responseBeside('04', 'ab'.repeat(48))]]), 'FE.zip', CUSTOMER_NIT, null);
  t.like(another, { ok: true, drafts: [{ validation: null }] }, "a rejection of another document is not this invoice's");
});

test('an AttachedDocument whose embedded response is missing but whose ResultOfVerification says 04 is refused; a response about another CUFE is not its validation', (t) => {
  const withoutResponse = (code: string) =>
    attached
      .replace(/(<cac:ParentDocumentLineReference>[\s\S]*?)<cac:Attachment>[\s\S]*?<\/cac:Attachment>/, '$1')
      .replace('<cbc:ValidationResultCode>02</cbc:ValidationResultCode>', `<cbc:ValidationResultCode>${code}</cbc:ValidationResultCode>`);
  t.false(withoutResponse('04').slice(withoutResponse('04').indexOf('<cac:ParentDocumentLineReference>')).includes('ApplicationResponse xmlns'));
  t.like(planImport(Buffer.from(withoutResponse('04')), 'ad0901.xml', CUSTOMER_NIT, null), { ok: false, code: 'dian_rejected_document' });
  t.like(planImport(Buffer.from(withoutResponse('02')), 'ad0901.xml', CUSTOMER_NIT, null), { ok: true, drafts: [{ validation: { responseCode: '02', validationDate: '2022-04-05' } }] });

  // DIAN's rejection of another document packed into this one's container does not refuse it, nor validate it.
  const otherKey = 'cd'.repeat(48);
  const foreignAnswer = attached.replace(/(<cac:DocumentResponse>[\s\S]*?<cbc:ResponseCode>)02(<\/cbc:ResponseCode>[\s\S]*?<cbc:UUID[^>]*>)[0-9a-f]+/, `$104$2${otherKey}`);
  t.true(foreignAnswer.includes(otherKey));
  t.like(planImport(Buffer.from(foreignAnswer), 'ad0901.xml', CUSTOMER_NIT, null), { ok: true, drafts: [{ validation: { responseCode: '02', description: null } }] });
});
