import { readFileSync } from 'node:fs';
import path from 'node:path';
import { FIXTURES } from './ingestion';

/** The second invoice the note corrects: a CUDE written in upper case, to check it is read in lower case. */
const SECOND_CUFE = '9328B0A47D16E0755BC839E35FAD5478F9CB14D78734B53470FC7A193D42C7CCF5FC1E9215DAD417C958AFF8DD1E20B4';

/**
 * ubl21dian's signed credit note (creditnote-usd.xml) made to correct two invoices, as Anexo
 * técnico 1.9 allows: a second cac:BillingReference after the first. Its number and CUDE are
 * changed too (to `number`, and a CUDE starting with `cudePrefix`, 8 hex digits), so it imports
 * beside the untouched fixture and beside another such note.
 */
export function creditNoteReferencingTwoInvoices(number = 'NC3-2REF', cudePrefix = 'beefbeef'): string {
  const xml = readFileSync(path.join(FIXTURES, 'creditnote-usd.xml'), 'utf8');
  const second = [
    '<cac:BillingReference>',
    '      <cac:InvoiceDocumentReference>',
    '         <cbc:ID>SETP990000002</cbc:ID>',
    `         <cbc:UUID schemeName="CUFE-SHA384">${SECOND_CUFE}</cbc:UUID>`,
    '         <cbc:IssueDate>2019-06-20</cbc:IssueDate>',
    '      </cac:InvoiceDocumentReference>',
    '   </cac:BillingReference>',
  ].join('\n');
  const withSecond = xml.replace('</cac:BillingReference>', `</cac:BillingReference>\n   ${second}`);
  if (withSecond === xml) throw new Error('creditnote-usd.xml has no cac:BillingReference to follow');
  return withSecond.replace('<cbc:ID>NC3</cbc:ID>', `<cbc:ID>${number}</cbc:ID>`).replace('>da3af05f963db5cf', `>${cudePrefix}963db5cf`);
}

/** The two references of creditNoteReferencingTwoInvoices, in reading order, as the parser gives them. */
export const TWO_REFERENCES = [
  {
    number: 'SETP990000015',
    cufe: 'e988c01fe2901d1bbf37911758961f7083b6e5c58400552b309549d6fbaa6402c8ff67b51d3c6f4ed478dc94b0c8b0fc',
    issueDate: '2019-06-21',
  },
  { number: 'SETP990000002', cufe: SECOND_CUFE.toLowerCase(), issueDate: '2019-06-20' },
] as const;
